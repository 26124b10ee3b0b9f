// Type declarations for the untyped npm packages the audio engines load (only what they use).

declare module 'espeak-ng' {
  interface ESpeakModuleOptions {
    arguments: string[];
    preRun?: Array<(m: ESpeakModule) => void>;
    instantiateWasm?: (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;
    print?: (line: string) => void;
    printErr?: (line: string) => void;
  }
  interface ESpeakModule {
    FS: {
      writeFile(path: string, data: string | Uint8Array): void;
      readFile(path: string): Uint8Array;
    };
  }
  const factory: (opts: ESpeakModuleOptions) => Promise<ESpeakModule>;
  export default factory;
}

declare module 'jsfxr' {
  /** sfxr synthesis parameters; preset methods fill them in using Math.random. */
  export class Params {
    sample_rate: number;
    sample_size: number;
    sound_vol: number;
    [preset: string]: unknown;
  }
  export class SoundEffect {
    constructor(params: Params);
    getRawBuffer(): { buffer: number[]; normalized: number[]; clipped: number };
  }
}

declare module 'js-synthesizer/libfluidsynth' {
  const libfluidsynth: unknown;
  export default libfluidsynth;
}
