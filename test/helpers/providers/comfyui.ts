import { randomUUID } from 'node:crypto';
import { FakeServer, type FakeReply, type FakeRequest } from './server.js';
import { makePng } from './media.js';

/**
 * A fake ComfyUI server: POST /prompt validates the API-format graph the way ComfyUI does (known
 * class_types, required inputs, links to existing nodes, an output node, LoadImage files that exist)
 * and answers `{ prompt_id, number, node_errors }` or 400 `{ error, node_errors }`; prompts wait in a
 * queue (GET /queue), run, and land in GET /history/{id} with their outputs or an execution_error;
 * POST /upload/image stores inputs, GET /view serves outputs, POST /interrupt and POST /queue
 * `{ delete }` stop work. Execution is simulated by counting polls.
 */

interface Node {
  class_type: string;
  inputs: Record<string, unknown>;
}

interface Prompt {
  id: string;
  number: number;
  graph: Record<string, Node>;
  /** History polls before it starts, and while it runs. */
  wait: number;
  run: number;
  polls: number;
  state: 'pending' | 'running' | 'done' | 'interrupted' | 'deleted';
}

export interface ComfyFake extends FakeServer {
  prompts: Map<string, Prompt>;
  uploads: Map<string, Buffer>;
  outputs: Map<string, Buffer>;
  interrupts: unknown[];
  /** Polls a new prompt spends queued and running (tests make it long to cancel). */
  timing: { wait: number; run: number };
  /**
   * An older server: no POST /api/jobs/{id}/cancel, and POST /interrupt stops whatever is running whatever
   * prompt_id it is given. Current servers cancel one job atomically and interrupt only the prompt named.
   */
  legacy: boolean;
  /** Every prompt id POST /prompt queued, in order (ComfyUI queues a repeated prompt_id again). */
  submits: string[];
}

const REQUIRED: Record<string, string[]> = {
  CheckpointLoaderSimple: ['ckpt_name'],
  CLIPTextEncode: ['text', 'clip'],
  EmptyLatentImage: ['width', 'height', 'batch_size'],
  KSampler: ['seed', 'steps', 'cfg', 'sampler_name', 'scheduler', 'denoise', 'model', 'positive', 'negative', 'latent_image'],
  VAEDecode: ['samples', 'vae'],
  VAEEncode: ['pixels', 'vae'],
  LoadImage: ['image'],
  SaveImage: ['images', 'filename_prefix'],
  PreviewImage: ['images'],
};
const OUTPUT_NODES = new Set(['SaveImage', 'PreviewImage']);
const CHECKPOINTS = ['sd_xl_base_1.0.safetensors', 'flux1-dev-fp8.safetensors'];

export const TXT2IMG_WORKFLOW = {
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: '{{num_images}}' } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry, {{negative_prompt}}', clip: ['4', 1] } },
  '3': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: 20, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'atelier' } },
  '10': { class_type: 'PreviewImage', inputs: { images: ['8', 0] } },
};

export const IMG2IMG_WORKFLOW = {
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
  '10': { class_type: 'LoadImage', inputs: { image: '{{image_url}}' } },
  '11': { class_type: 'VAEEncode', inputs: { pixels: ['10', 0], vae: ['4', 2] } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: '', clip: ['4', 1] } },
  '3': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: 20, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 0.6, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['11', 0] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'edit' } },
};

type NodeErrors = Record<string, { errors: Array<{ type: string; message: string; details: string; extra_info: object }>; dependent_outputs: string[]; class_type: string }>;

function validate(graph: Record<string, Node>, uploads: Map<string, Buffer>): FakeReply | undefined {
  const nodeErrors: NodeErrors = {};
  const add = (id: string, type: string, message: string, details: string) => {
    (nodeErrors[id] ??= { errors: [], dependent_outputs: [], class_type: graph[id]!.class_type }).errors.push({ type, message, details, extra_info: {} });
  };
  for (const [id, node] of Object.entries(graph)) {
    if (!node || typeof node.class_type !== 'string' || !REQUIRED[node.class_type]) {
      return { status: 400, json: { error: { type: 'invalid_prompt', message: `Cannot execute because node ${node?.class_type} does not exist.`, details: `Node ID '#${id}'`, extra_info: {} }, node_errors: {} } };
    }
    for (const name of REQUIRED[node.class_type]!) if (!(name in (node.inputs ?? {}))) add(id, 'required_input_missing', 'Required input is missing', name);
    for (const [name, v] of Object.entries(node.inputs ?? {})) {
      if (Array.isArray(v) && !graph[String(v[0])]) add(id, 'exception_during_inner_validation', 'Exception when validating inner node', `${name}: link to missing node ${String(v[0])}`);
    }
    if (node.class_type === 'CheckpointLoaderSimple' && !CHECKPOINTS.includes(String(node.inputs.ckpt_name))) {
      add(id, 'value_not_in_list', 'Value not in list', `ckpt_name: '${String(node.inputs.ckpt_name)}' not in ${JSON.stringify(CHECKPOINTS)}`);
    }
    if (node.class_type === 'KSampler' && !Number.isInteger(node.inputs.seed)) add(id, 'invalid_input_type', 'Failed to convert an input value to a INT value', `seed, ${String(node.inputs.seed)}`);
    if (node.class_type === 'EmptyLatentImage' && (typeof node.inputs.width !== 'number' || (node.inputs.width as number) < 16)) add(id, 'value_smaller_than_min', 'Value smaller than min', `width: ${String(node.inputs.width)}`);
    if (node.class_type === 'LoadImage' && !uploads.has(String(node.inputs.image))) add(id, 'custom_validation_failed', 'Custom validation failed for node', `image - Invalid image file: ${String(node.inputs.image)}`);
  }
  if (!Object.values(graph).some((n) => OUTPUT_NODES.has(n.class_type))) {
    return { status: 400, json: { error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} }, node_errors: [] } };
  }
  if (Object.keys(nodeErrors).length) {
    return { status: 400, json: { error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: '', extra_info: {} }, node_errors: nodeErrors } };
  }
  return undefined;
}

export async function startComfyFake(): Promise<ComfyFake> {
  const prompts = new Map<string, Prompt>();
  const uploads = new Map<string, Buffer>();
  const outputs = new Map<string, Buffer>();
  const interrupts: unknown[] = [];
  let number = 0;

  const history = (p: Prompt) => {
    const timestamp = Date.now();
    const crash = Object.entries(p.graph).find(([, n]) => n.class_type === 'CLIPTextEncode' && String(n.inputs.text).includes('explode'));
    if (p.state === 'interrupted') {
      return { prompt: [p.number, p.id, p.graph, {}, []], outputs: {}, status: { status_str: 'error', completed: false, messages: [['execution_start', { prompt_id: p.id, timestamp }], ['execution_interrupted', { prompt_id: p.id, node_id: '3', node_type: 'KSampler', executed: [], timestamp }]] } };
    }
    if (crash) {
      return {
        prompt: [p.number, p.id, p.graph, {}, []],
        outputs: {},
        status: { status_str: 'error', completed: false, messages: [['execution_start', { prompt_id: p.id, timestamp }], ['execution_error', { prompt_id: p.id, node_id: '3', node_type: 'KSampler', executed: ['4'], exception_message: 'Allocation on device 0 would exceed allowed memory. (out of memory)\n', exception_type: 'torch.OutOfMemoryError', traceback: ['...'], timestamp }]] },
      };
    }
    const outs: Record<string, unknown> = {};
    for (const [id, n] of Object.entries(p.graph)) {
      if (!OUTPUT_NODES.has(n.class_type)) continue;
      const latent = Object.values(p.graph).find((x) => x.class_type === 'EmptyLatentImage');
      const count = Number(latent?.inputs.batch_size ?? 1);
      const type = n.class_type === 'SaveImage' ? 'output' : 'temp';
      const images = Array.from({ length: count }, (_, i) => {
        const filename = `${n.class_type === 'SaveImage' ? String(n.inputs.filename_prefix) : 'ComfyUI_temp'}_${String(p.number * 10 + i).padStart(5, '0')}_.png`;
        outputs.set(`${type}/${filename}`, makePng(Number(latent?.inputs.width ?? 64) / 8, Number(latent?.inputs.height ?? 64) / 8, [i * 60, 30, 90]));
        return { filename, subfolder: '', type };
      });
      outs[id] = { images };
    }
    return { prompt: [p.number, p.id, p.graph, {}, Object.keys(outs)], outputs: outs, status: { status_str: 'success', completed: true, messages: [['execution_start', { prompt_id: p.id, timestamp }], ['execution_success', { prompt_id: p.id, timestamp }]] } };
  };

  const route = async (req: FakeRequest, fake: ComfyFake): Promise<FakeReply> => {
    // Installed node classes, as ComfyUI lists them (each with its input spec; only the keys matter here).
    if (req.method === 'GET' && req.path === '/object_info') {
      return { json: Object.fromEntries(Object.entries(REQUIRED).map(([name, inputs]) => [name, { input: { required: Object.fromEntries(inputs.map((i) => [i, ['*']])) }, output_node: OUTPUT_NODES.has(name), name }])) };
    }
    if (req.method === 'POST' && req.path === '/upload/image') {
      const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: new Uint8Array(req.body) }).formData();
      const file = form.get('image');
      if (!(file instanceof File)) return { status: 400, body: 'No file' };
      uploads.set(file.name, Buffer.from(await file.arrayBuffer()));
      return { json: { name: file.name, subfolder: '', type: String(form.get('type') ?? 'input') } };
    }
    if (req.method === 'POST' && req.path === '/prompt') {
      const body = req.json();
      if (!body.prompt || typeof body.prompt !== 'object') return { status: 400, json: { error: { type: 'no_prompt', message: 'No prompt provided', details: '', extra_info: {} }, node_errors: [] } };
      const bad = validate(body.prompt, uploads);
      if (bad) return bad;
      // A client may choose the prompt_id; the server takes it as given.
      const id = typeof body.prompt_id === 'string' && body.prompt_id ? body.prompt_id : randomUUID();
      const p: Prompt = { id, number: number++, graph: body.prompt, wait: fake.timing.wait, run: fake.timing.run, polls: 0, state: 'pending' };
      prompts.set(p.id, p);
      fake.submits.push(p.id);
      return { json: { prompt_id: p.id, number: p.number, node_errors: {} } };
    }
    const h = /^\/history\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && h) {
      const p = prompts.get(h[1]!);
      if (!p || p.state === 'deleted') return { json: {} };
      if (p.state === 'pending' || p.state === 'running') {
        p.polls++;
        p.state = p.polls <= p.wait ? 'pending' : p.polls <= p.wait + p.run ? 'running' : 'done';
      }
      return p.state === 'done' || p.state === 'interrupted' ? { json: { [p.id]: history(p) } } : { json: {} };
    }
    if (req.path === '/queue') {
      if (req.method === 'GET') {
        const item = (p: Prompt) => [p.number, p.id, p.graph, {}, []];
        const list = [...prompts.values()];
        return { json: { queue_running: list.filter((p) => p.state === 'running').map(item), queue_pending: list.filter((p) => p.state === 'pending').map(item) } };
      }
      if (req.method === 'POST') {
        for (const id of req.json().delete ?? []) {
          const p = prompts.get(id);
          if (p?.state === 'pending') p.state = 'deleted';
        }
        return { status: 200, body: '' };
      }
    }
    if (req.method === 'POST' && req.path === '/interrupt') {
      const body = req.body.length ? req.json() : {};
      interrupts.push(body);
      for (const p of prompts.values()) if (p.state === 'running' && (fake.legacy || !body.prompt_id || body.prompt_id === p.id)) p.state = 'interrupted';
      return { status: 200, body: '' };
    }
    const cancel = /^\/api\/jobs\/([^/]+)\/cancel$/.exec(req.path);
    if (req.method === 'POST' && cancel && !fake.legacy) {
      const p = prompts.get(cancel[1]!);
      if (!p) return { status: 404, json: { error: 'Job not found' } };
      if (p.state === 'pending') p.state = 'deleted';
      else if (p.state === 'running') p.state = 'interrupted';
      return { json: { id: p.id, status: p.state === 'deleted' || p.state === 'interrupted' ? 'cancelled' : p.state } };
    }
    if (req.method === 'GET' && req.path === '/view') {
      const f = outputs.get(`${req.query.get('type') ?? 'output'}/${req.query.get('filename')}`);
      return f ? { headers: { 'content-type': 'image/png' }, body: f } : { status: 404, body: '404: Not Found' };
    }
    return { status: 404, body: '404: Not Found' };
  };

  const fake = new FakeServer((req, f) => route(req, f as ComfyFake)) as ComfyFake;
  Object.assign(fake, { prompts, uploads, outputs, interrupts, timing: { wait: 1, run: 1 }, legacy: false, submits: [] });
  return fake.start();
}
