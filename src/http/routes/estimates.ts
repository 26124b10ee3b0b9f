import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { AppError } from '../../errors.js';
import { estimateNodes, totalMicrocredits } from '../../catalog/estimate.js';
import { type TypedApp, withErrors } from '../schemas/common.js';
import { Estimate, NodeEstimateBody, NodesEstimateBody } from '../../contract/models.js';

/**
 * Cost estimates (spec 4.4, 4.6): the same pricing function that charges runs. Lenient, as the hosted
 * service's: unknown or invalid inputs are priced at their defaults and named in `ignored`; runs stay strict.
 */
export async function estimateRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  app.post('/v1/workflows/estimate-credits', {
    schema: {
      tags: ['workflows'], summary: 'Estimate workflow cost', body: NodesEstimateBody,
      response: withErrors({ 200: Type.Object({ totalMicrocredits: Type.Integer(), estimates: Type.Array(Estimate) }) }),
    },
  }, async (req) => {
    const estimates = estimateNodes(services.catalog, req.body.nodes, 'body.nodes', { lenient: true });
    return { totalMicrocredits: totalMicrocredits(estimates), estimates };
  });

  app.post('/v1/nodes/estimate-credits', {
    schema: {
      tags: ['nodes'], summary: 'Estimate node cost', body: NodeEstimateBody,
      response: withErrors({ 200: Type.Object({ estimates: Type.Array(Estimate), totalMicrocredits: Type.Integer() }) }),
    },
  }, async (req) => {
    const body = req.body;
    let estimates;
    if (body.nodes !== undefined) {
      if (body.nodeType !== undefined) throw new AppError('VALIDATION_ERROR', 'give either nodes or nodeType, not both', { details: [{ path: 'body.nodeType', message: 'cannot be combined with nodes' }] });
      estimates = estimateNodes(services.catalog, body.nodes, 'body.nodes', { lenient: true });
    } else if (body.nodeType !== undefined) {
      if (body.data !== undefined && body.input !== undefined) throw new AppError('VALIDATION_ERROR', 'give either data or input, not both', { details: [{ path: 'body.input', message: 'cannot be combined with data' }] });
      estimates = estimateNodes(services.catalog, [{ type: body.nodeType, subModelId: body.subModelId, data: body.data ?? body.input }], 'body.node', { lenient: true });
    } else {
      throw new AppError('VALIDATION_ERROR', 'body.nodes or body.nodeType is required', { details: [{ path: 'body.nodeType', message: 'is required (or nodes)' }] });
    }
    return { estimates, totalMicrocredits: totalMicrocredits(estimates) };
  });
}
