import type { Metric, Registry } from 'prom-client';

/**
 * A Prometheus histogram for the hot path: an observation is a short scan of the bucket
 * bounds and two additions to plain numbers, nothing hashed or allocated (prom-client's
 * `Histogram.observe` hashes its label set into a key on every call). The cumulative
 * `_bucket`, `_sum` and `_count` samples are built only when scraped.
 */
export class PlainHistogram {
  /** Observations per bucket, not cumulative; the last one is +Inf. */
  private readonly counts: Float64Array;
  private sum = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds, ascending, in the unit observed (seconds, by Prometheus convention). */
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]) bucket++;
    this.counts[bucket]++;
    this.sum += value;
  }

  /** Registers the histogram's samples, read at each scrape, in `registry`. */
  registerIn(registry: Registry): void {
    // prom-client's registry renders any object with a name, a help and a get() of samples;
    // its typings only name its own metric classes.
    registry.registerMetric(this.asRegisteredMetric() as unknown as Metric);
  }

  private asRegisteredMetric(): object {
    return {
      name: this.name,
      help: this.help,
      type: 'histogram',
      get: () => ({
        name: this.name,
        help: this.help,
        type: 'histogram',
        aggregator: 'sum',
        values: this.samples(),
      }),
    };
  }

  /** The cumulative buckets, then sum and count, as prom-client's own histogram lists them. */
  samples(): { metricName: string; labels: Record<string, string | number>; value: number }[] {
    const samples = [];
    let cumulative = 0;
    for (let bucket = 0; bucket < this.counts.length; bucket++) {
      cumulative += this.counts[bucket];
      const le = bucket < this.bounds.length ? this.bounds[bucket] : '+Inf';
      samples.push({ metricName: `${this.name}_bucket`, labels: { le }, value: cumulative });
    }
    samples.push({ metricName: `${this.name}_sum`, labels: {}, value: this.sum });
    samples.push({ metricName: `${this.name}_count`, labels: {}, value: cumulative });
    return samples;
  }
}
