// Preloaded into a service under test (NODE_OPTIONS=--expose-gc --require …):
// on SIGUSR2 it collects garbage and writes the memory still live to stderr,
// which is what a leak grows, unlike RSS, which V8 and malloc keep reserved.
process.on('SIGUSR2', () => {
  globalThis.gc();
  const { heapUsed, external } = process.memoryUsage();
  process.stderr.write(`heap-probe ${JSON.stringify({ heapUsed, external })}\n`);
});
