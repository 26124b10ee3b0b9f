/**
 * Response examples of the spec's seed endpoints, by operationId and status, shown in /docs and checked
 * against their schemas by Redocly's no-invalid-media-type-examples rule (test/api/openapiTools.test.ts).
 */
const RUN = 'run_01JD8Y3Q6W5B2M1X9K7T4C0E2F';
const FILE_URL = 'https://atelier.example.com/v1/files/file_01JD8Y4A1B2C3D4E5F6G7H8J9K?exp=1767225600&sig=Zm9vYmFy';
const NODE_RUN = {
  id: RUN, nodeType: 'espeak_tts', subModelId: null, status: 'COMPLETED', input: { text: 'Hello from Atelier.' },
  output: { result: [FILE_URL] },
  files: [{ id: 'file_01JD8Y4A1B2C3D4E5F6G7H8J9K', url: FILE_URL, contentType: 'audio/wav', bytes: 45_244, durationSeconds: 1.4 }],
  error: null, userMessage: null, creditUsed: 200, estimatedCredits: 200, progress: 1, progressMessage: null,
  createdAt: '2026-01-01T12:00:00.000Z', startedAt: '2026-01-01T12:00:00.120Z', finishedAt: '2026-01-01T12:00:00.480Z',
};
const WORKFLOW = {
  id: 'wf_01JD8Y5M2N3P4Q5R6S7T8V9W0X', name: 'Speech', description: '', isSystem: false,
  nodes: [
    { id: 'node_A', type: 'request', subModelId: null, label: null, position: { x: 0, y: 0 }, data: { fields: [{ id: 'text', name: 'text', type: 'text' }] } },
    { id: 'node_B', type: 'espeak_tts', subModelId: null, label: null, position: { x: 300, y: 0 }, data: {} },
    { id: 'node_Z', type: 'response', subModelId: null, label: null, position: { x: 600, y: 0 }, data: {} },
  ],
  edges: [
    { id: 'edge_1', source: 'node_A', sourceHandle: 'text', target: 'node_B', targetHandle: 'in:text' },
    { id: 'edge_2', source: 'node_B', sourceHandle: 'out:result', target: 'node_Z', targetHandle: 'result' },
  ],
  requestNodeId: 'node_A', responseNodeId: 'node_Z', requestFields: [{ id: 'text', name: 'text', type: 'text' }],
  createdAt: '2026-01-01T12:00:00.000Z', updatedAt: '2026-01-01T12:00:00.000Z',
};
const WORKFLOW_RUN = {
  id: RUN, status: 'COMPLETED', workflowId: WORKFLOW.id, triggerRunId: null, createdAt: '2026-01-01T12:00:00.000Z',
  startedAt: '2026-01-01T12:00:00.050Z', finishedAt: '2026-01-01T12:00:00.900Z', error: null, context: null,
  outputs: { node_B: { 'out:result': [FILE_URL] } }, estimatedCredits: 200, actualCredits: 200,
  nodeRuns: [{
    nodeId: 'node_B', nodeType: 'espeak_tts', subModelId: null, status: 'COMPLETED', cached: false, input: { text: 'Hello' },
    output: { 'out:result': [FILE_URL] }, logs: [], error: null, startedAt: '2026-01-01T12:00:00.100Z', finishedAt: '2026-01-01T12:00:00.800Z',
    estimatedCredits: 200, actualCredits: 200, creditUsed: 200,
  }],
};
const MODEL = { nodeType: 'espeak_tts', defaultSubModelId: 'espeak-tts', name: 'eSpeak text to speech', description: 'Speech from text with eSpeak NG', category: 'audio', icon: 'volume-2', accent: '#4f46e5', available: true, provider: 'local', engine: 'tool' };

const TEXT_FIELD_CATALOG = { zodExpectedName: 'text', type: 'textarea', dataType: 'string', label: 'Text', required: true, maxLength: 5000, helpText: 'What to say' };

export const RESPONSE_EXAMPLES: Record<string, Record<string, unknown>> = {
  'models.list': { 200: [MODEL] },
  'models.search': { 200: { modelCatalog: { 'text-to-speech': [{ modelId: 'espeak_tts', nodeType: 'espeak_tts', defaultSubModelId: 'espeak-tts', name: MODEL.name, description: MODEL.description, available: true, engine: 'tool' }] }, categoryRoles: { 'text-to-speech': 'GENERATE' }, usage: 'Pick a model, read its schema, then run it.' } },
  'models.catalog': { 200: {
    version: 1, generatedAt: '2026-01-01T12:00:00.000Z',
    models: {
      espeak_tts: {
        parentModelId: 'espeak_tts', defaultSubModelId: 'espeak-tts', nodeKind: 'audio', nodeType: 'espeak_tts', name: MODEL.name, description: MODEL.description,
        icon: MODEL.icon, accent: MODEL.accent, category: 'text-to-speech', providerType: 'internal', providerLabel: 'Atelier', cost: { type: 'fixed', microcredits: 200 },
        estimateDescription: '200 microcredits per run', inputFieldOptions: [TEXT_FIELD_CATALOG], outputFieldOptions: [{ zodExpectedName: 'result', type: 'audio', dataType: 'string[]', label: 'result' }],
        subModels: [{
          subModelId: 'espeak-tts', label: 'Speech', category: 'text-to-speech', inputFieldOptions: [TEXT_FIELD_CATALOG], outputFieldOptions: [{ zodExpectedName: 'result', type: 'audio', dataType: 'string[]', label: 'result' }],
          inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string', maxLength: 5000 } } }, defaultEstimateMicrocredits: 200, estimateDescription: '200 microcredits per run', engine: 'tool', available: true,
        }],
        available: true, engine: 'tool', provider: 'local',
      },
    },
  } },
  'models.schema': { 200: {
    modelId: 'espeak_tts', nodeType: 'espeak_tts', subModelId: null, defaultSubModelId: 'espeak-tts', name: MODEL.name, category: 'text-to-speech', description: MODEL.description, features: [], capabilities: {},
    fields: [{ name: 'text', type: 'textarea', dataType: 'string', label: 'Text', required: true, description: 'What to say', maxLength: 5000, widget: 'textarea', portType: 'text' }],
    defaults: {}, outputs: [{ name: 'result', dataType: 'audio' }], jsonSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string', maxLength: 5000 } } },
  } },
  'models.pricing': { 200: { modelId: 'espeak_tts', nodeType: 'espeak_tts', subModelId: null, defaultSubModelId: 'espeak-tts', unit: 'run', rule: { kind: 'flat', microcredits: 200 }, summary: '200 microcredits per run', examples: [{ input: { text: 'Hello' }, microcredits: 200 }] } },
  'models.deprecated': { 200: { items: [{ nodeType: 'old_tts', name: 'Old TTS', category: 'audio', deprecatedAt: '2026-01-01T00:00:00.000Z', replacement: 'espeak_tts', runCount: 3 }] } },
  'models.deprecatedRuns': { 200: { nodeType: 'old_tts', items: [{ id: RUN, status: 'COMPLETED', input: { text: 'Hi' }, output: null, creditUsed: 100, createdAt: '2025-06-01T00:00:00.000Z', finishedAt: '2025-06-01T00:00:01.000Z' }], nextCursor: null } },
  'estimates.node': { 200: { estimates: [{ microcredits: 200, ignored: [{ path: 'body.node[0].data.speed', message: 'is not an input of this model; ignored' }] }], totalMicrocredits: 200 } },
  'estimates.workflow': { 200: { totalMicrocredits: 1200, estimates: [{ microcredits: 200 }, { microcredits: 1000 }] } },
  'credits.balance': { 200: { availableBalance: 10_000_000, formatted: '10.00M', hasActiveSubscription: false, isOrganization: false, reservedMicrocredits: 0 } },
  'nodeRuns.run': { 202: { runId: RUN, status: 'QUEUED', estimatedCredits: 200 }, 200: { runId: RUN, ...NODE_RUN } },
  'nodeRuns.get': { 200: NODE_RUN },
  'workflows.create': { 201: WORKFLOW },
  'workflows.quickCreate': { 201: WORKFLOW },
  'workflows.get': { 200: WORKFLOW },
  'workflows.duplicate': { 201: WORKFLOW },
  'workflows.addNode': { 201: { nodeId: 'node_B', type: 'espeak_tts', subModelId: null, mode: 'espeak_tts', position: { x: 300, y: 0 }, inputPorts: ['in:text', 'in:voice'], outputPorts: ['out:result'], inputsSet: [] } },
  'workflows.updateNode': { 200: { nodeId: 'node_B', type: 'espeak_tts', subModelId: null, data: { voice: 'en' }, inputsSet: ['voice'] } },
  'workflows.clearCache': { 200: { workflowId: WORKFLOW.id, cleared: 2 } },
  'workflows.systemList': { 200: { items: [{ id: 'sys_sound_scene', slug: 'sound-scene', name: 'Sound scene', description: 'A layered sound effect scene', category: 'audio', nodeTypes: ['sfxr_sound_effects'], requestFields: [{ id: 'seed', name: 'seed', type: 'number' }] }] } },
  'runs.run': { 202: { runId: RUN, status: 'QUEUED', estimatedCredits: 200 } },
  'runs.get': { 200: WORKFLOW_RUN },
};
