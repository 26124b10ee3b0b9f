// autocannon ships no types; the bench uses its programmatic API through lib/load.ts only.
declare module 'autocannon' {
  const autocannon: (opts: Record<string, unknown>) => Promise<any>;
  export default autocannon;
}
