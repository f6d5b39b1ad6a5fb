/** One sample of the Prometheus text format: name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

// Values as Prometheus reads them (Go's ParseFloat: NaN and Inf in any letter case).
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|nan|[+-]?inf)$/i;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * Parses the text exposition format (version 0.0.4) strictly: every line is a
 * comment (# HELP, # TYPE) or a sample; anything else throws.
 */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a Prometheus text line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL))
      labels[key as string] = value as string;
    const raw = (match[3] as string).toLowerCase();
    const value =
      raw === 'nan'
        ? Number.NaN
        : raw.endsWith('inf')
          ? Number(raw.replace('inf', 'Infinity'))
          : Number(raw);
    samples.push({ name: match[1] as string, labels, value });
  }
  return samples;
}

/** The value of the one sample with this name and these labels (0 when absent). */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = samples.find(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return found?.value ?? 0;
}
