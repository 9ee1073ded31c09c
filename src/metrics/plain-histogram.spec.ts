import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { PlainHistogram } from './plain-histogram';

const BOUNDS = [0.001, 0.005, 0.01, 0.1, 1];

/** The text a registry holding only this metric renders. */
async function rendered(
  register: (registry: Registry) => (value: number) => void,
  values: number[],
) {
  const registry = new Registry();
  const observe = register(registry);
  for (const value of values) observe(value);
  return registry.metrics();
}

describe('PlainHistogram', () => {
  it('should render exactly what prom-client renders for the same observations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.double({ min: 0, max: 5, noNaN: true }), { maxLength: 50 }),
        async (values) => {
          const plain = await rendered((registry) => {
            const histogram = new PlainHistogram('latency_seconds', 'Latency', BOUNDS);
            histogram.registerIn(registry);
            return (value) => histogram.observe(value);
          }, values);
          const reference = await rendered((registry) => {
            const histogram = new Histogram({
              name: 'latency_seconds',
              help: 'Latency',
              buckets: BOUNDS,
              registers: [registry],
            });
            return (value) => histogram.observe(value);
          }, values);
          expect(plain).toBe(reference);
        },
      ),
    );
  });

  it('should count a value equal to a bound in that bound’s bucket (le is inclusive)', () => {
    const histogram = new PlainHistogram('latency_seconds', 'Latency', BOUNDS);
    histogram.observe(0.01);
    histogram.observe(7);
    const buckets = histogram
      .samples()
      .filter((sample) => sample.metricName === 'latency_seconds_bucket')
      .map((sample) => [sample.labels.le, sample.value]);
    expect(buckets).toEqual([
      [0.001, 0],
      [0.005, 0],
      [0.01, 1],
      [0.1, 1],
      [1, 1],
      ['+Inf', 2],
    ]);
  });
});
