import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { actingPrincipal, pageContext, sendHtml, signedIn } from '../context.js';
import { graphElements, withLabels } from '../graphElements.js';
import { workflowPage, workflowsPage } from '../views/workflows.js';

/** The account's workflows and the system ones; one workflow's graph; duplicating one into the account. */
export async function workflowRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.get('/workflows', async (req, reply) => {
    const ctx = await pageContext(services, req);
    const q = req.query as Record<string, unknown>;
    const cursor = typeof q.cursor === 'string' ? q.cursor : undefined;
    const own = await services.workflows.list(actingPrincipal(ctx.user).accountId, { cursor, limit: 50 });
    const system = await services.workflows.systemList();
    const names = (t: string) => services.catalog.model(t)?.name ?? t;
    return sendHtml(reply, workflowsPage(ctx, {
      own: own.items, system: system.items.map((w) => ({ ...w, nodeNames: w.nodeTypes.map(names) })), nextCursor: own.nextCursor, firstPage: cursor === undefined,
      notice: q.done === 'duplicated' ? { kind: 'success', text: 'Duplicated.' } : undefined,
    }));
  });

  app.get('/workflows/:id', async (req, reply) => {
    const ctx = await pageContext(services, req);
    const found = await services.workflows.get(actingPrincipal(ctx.user).accountId, (req.params as { id: string }).id);
    const workflow = { ...found, ...withLabels(found, (t) => services.catalog.model(t)?.name) };
    const duplicated = (req.query as Record<string, unknown>).done === 'duplicated';
    return sendHtml(reply, workflowPage(ctx, {
      workflow,
      graph: graphElements({ nodes: workflow.nodes, edges: workflow.edges }),
      notice: duplicated ? { kind: 'success', text: 'This is your copy: open it in the editor (Edit) or change it through the API, and run it by its id.' } : undefined,
    }));
  });

  app.post('/workflows/:id/duplicate', async (req, reply) => {
    const copy = await services.workflows.duplicate(actingPrincipal(signedIn(req).user).accountId, (req.params as { id: string }).id);
    return reply.code(303).header('Location', `/workflows/${copy.id}?done=duplicated`).send();
  });
}
