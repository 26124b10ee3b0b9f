/**
 * The one interface every model backend implements, local or remote. Engines never touch the database or
 * the file store: they read inputs (media through ctx.fetchMedia), write scratch files under ctx.tmpDir,
 * and return typed outputs. The run worker stores returned files as artifacts.
 */

export interface EngineLogger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
}

export interface Media {
  bytes: Buffer;
  /** Sniffed from the bytes, never taken on trust from a header or a data: URL. */
  contentType: string;
  /**
   * A URL from which a provider can GET these same bytes, when the service has one for them (one of its own
   * files: the S3 store's presigned URL, or the signed URL under a reachable PUBLIC_URL; src/files/handOff.ts).
   * Adapters hand it over instead of uploading the bytes again or inlining them.
   */
  url?: string;
}

export interface FetchMediaOptions {
  /** Which kind the input must be; a mismatch is a clear input error. */
  accept?: 'image' | 'audio' | 'video' | 'avmedia' | 'any';
  maxBytes?: number;
}

export interface EngineContext {
  /** Aborted on cancel or deadline; long work must check it and stop. */
  signal: AbortSignal;
  /** Epoch ms by which the engine must have finished. */
  deadline: number;
  /** 0..1 and a short message, shown on the run while RUNNING. */
  progress(fraction: number, message?: string): void;
  /**
   * Partial output as it is made (an LLM's token text), for the run's event stream. Optional: only where
   * the run has a stream to feed; the engine still returns the whole output at the end.
   */
  delta?(text: string): void;
  log: EngineLogger;
  /** A scratch folder private to this execution, removed afterwards. */
  tmpDir: string;
  /** Resolves an https:, data: or own-file URL to bytes, with SSRF guards, size and time limits. */
  fetchMedia(url: string, opts?: FetchMediaOptions): Promise<Media>;
  /** The largest output this run may return (ATELIER_MAX_OUTPUT_BYTES), so an engine can refuse before writing it. */
  maxOutputBytes?: number;
}

export interface FileOutput {
  kind: 'file';
  data: Buffer;
  /**
   * Optional: the output's bytes are in this file (in the run's tmpDir), and the runner streams them to the
   * artifact store from there without reading them into memory (large videos). `data` is then only read by
   * callers that want the bytes in memory (tests).
   */
  path?: string;
  contentType: string;
  /** Suggested download name, e.g. "speech.wav". */
  filename?: string;
  width?: number;
  height?: number;
  durationSeconds?: number;
}

export type OutputValue =
  | { kind: 'text'; text: string }
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'json'; value: unknown }
  | FileOutput;

/** Keyed by output name: media models use `result` (a list of files), text models `output`. */
export type EngineOutputs = Record<string, OutputValue | OutputValue[]>;

export interface Availability {
  available: boolean;
  /** Why not, in words an operator can act on ("install the Debian package flite"). */
  reason?: string;
}

export interface ExecuteRequest {
  nodeType: string;
  subModelId: string;
  /** Validated against the mode's JSON Schema with defaults filled in. */
  input: Record<string, unknown>;
  /** Engine-specific settings from the catalog binding (a preset name, a remote model id, …). */
  options: Record<string, unknown>;
}

export interface Engine {
  /** Stable id used in catalog bindings, e.g. "espeak", "ffmpeg-video", "openai". */
  readonly id: string;
  /** What it needs, for operators: npm packages, system binaries, environment variables. */
  readonly requirements: string[];
  /** Checked once per process at start (cheap: look for binaries, config); cached by the registry. */
  availability(): Promise<Availability>;
  execute(req: ExecuteRequest, ctx: EngineContext): Promise<EngineOutputs>;
}

/**
 * An error the engine attributes to the input (bad image, unsupported language): shown to the caller as is.
 * `INPUT_TOO_LARGE` names an input over a size cap (an audio file too long, too many channels), kept as
 * the run's `errorCode`.
 */
export class EngineInputError extends Error {
  override name = 'EngineInputError';
  constructor(message: string, readonly code?: 'INPUT_TOO_LARGE') {
    super(message);
  }
}

/** A failure of the backend (provider down, binary crashed); the run fails with this message. */
export class EngineError extends Error {
  override name = 'EngineError';
  constructor(message: string, readonly retryable = false) {
    super(message);
  }
}
