import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { AppError } from '../../errors.js';
import { field, pageContext, sendHtml, signedIn } from '../context.js';
import { parseDateInput, parseIntField } from '../views/format.js';
import { apiKeysPage, editKeyPage, type KeyFormValues } from '../views/apiKeys.js';
import { scopeInputOf } from '../views/keyScope.js';

const FIELD_NAMES: Record<string, string> = {
  label: 'Label', perMinute: 'Requests per minute', perDay: 'Requests per day', expiresAt: 'Expiry date', role: 'Role',
  'budgets.day': 'Spend limit per UTC day', 'budgets.month': 'Spend limit per UTC month', 'budgets.total': 'Spend limit in total',
  nodeTypes: 'Allowed models', categories: 'Allowed categories', providers: 'Allowed providers',
};
const DONE: Record<string, string> = { revoked: 'Key revoked. Requests with it are refused from now on.', updated: 'Key updated.' };

/** A refusal from the key service in the form's words ("perDay must be…" → "Requests per day must be…"). */
function friendly(err: AppError): string {
  const path = err.details?.[0]?.path;
  if (path && FIELD_NAMES[path] && err.message.startsWith(path)) return `${FIELD_NAMES[path]}${err.message.slice(path.length)}.`;
  return err.message.endsWith('.') ? err.message : `${err.message}.`;
}

function formValues(body: unknown): KeyFormValues {
  return {
    label: field(body, 'label'), expiresOn: field(body, 'expiresOn'), perMinute: field(body, 'perMinute'), perDay: field(body, 'perDay'),
    role: field(body, 'role'), nodeTypes: field(body, 'nodeTypes'), categories: field(body, 'categories'), providers: field(body, 'providers'),
    dayLimit: field(body, 'dayLimit'), monthLimit: field(body, 'monthLimit'), totalLimit: field(body, 'totalLimit'),
  };
}

/** Settings > API Keys (spec 2.1): list, create (shown once), edit label and limits, revoke. */
export async function apiKeyRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const keys = services.keys;

  app.get('/settings/api-keys', async (req, reply) => {
    const ctx = await pageContext(services, req);
    const done = DONE[String((req.query as Record<string, unknown>).done ?? '')];
    return sendHtml(reply, apiKeysPage(ctx, { keys: await keys.list(ctx.user), notice: done ? { kind: 'success', text: done } : undefined }));
  });

  app.post('/settings/api-keys', async (req, reply) => {
    const ctx = await pageContext(services, req);
    const values = formValues(req.body);
    try {
      const expiresAt = parseDateInput(values.expiresOn);
      if (expiresAt === null) throw new AppError('VALIDATION_ERROR', 'Expiry date must be a date (YYYY-MM-DD).');
      const created = await keys.create(ctx.user, {
        label: values.label ?? '', expiresAt, perMinute: parseIntField(values.perMinute), perDay: parseIntField(values.perDay),
      });
      // Rendered in this answer (never stored, never redirected through a URL): the one time the key is shown.
      return sendHtml(reply, apiKeysPage(ctx, { keys: await keys.list(ctx.user), created, notice: { kind: 'success', text: 'Key created.' } }), 201);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return sendHtml(reply, apiKeysPage(ctx, { keys: await keys.list(ctx.user), values, notice: { kind: 'error', text: friendly(err) } }), err.status);
    }
  });

  const ownKey = async (userId: Parameters<typeof keys.list>[0], id: string) => {
    const key = (await keys.list(userId)).find((k) => k.id === id && k.state !== 'revoked');
    if (!key) throw new AppError('NOT_FOUND', 'There is no such key among your unrevoked keys.');
    return key;
  };

  app.get('/settings/api-keys/:id/edit', async (req, reply) => {
    const ctx = await pageContext(services, req);
    return sendHtml(reply, editKeyPage(ctx, await ownKey(ctx.user, (req.params as { id: string }).id)));
  });

  app.post('/settings/api-keys/:id', async (req, reply) => {
    const ctx = await pageContext(services, req);
    const id = (req.params as { id: string }).id;
    const key = await ownKey(ctx.user, id);
    const values = formValues(req.body);
    try {
      await keys.update(ctx.user, id, { label: values.label, perMinute: parseIntField(values.perMinute), perDay: parseIntField(values.perDay), ...scopeInputOf(values) });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500 || err.status === 404) throw err;
      return sendHtml(reply, editKeyPage(ctx, key, { values, notice: { kind: 'error', text: friendly(err) } }), err.status);
    }
    return reply.code(303).header('Location', '/settings/api-keys?done=updated').send();
  });

  app.post('/settings/api-keys/:id/revoke', async (req, reply) => {
    await keys.revokeById(signedIn(req).user, (req.params as { id: string }).id);
    return reply.code(303).header('Location', '/settings/api-keys?done=revoked').send();
  });
}
