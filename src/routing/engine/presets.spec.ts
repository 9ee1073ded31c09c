import { PRESET_UTM, PRESET_WEIGHTS } from './presets';
import { ROUTING_PRESET_IDS, SIGNAL_NAMES } from './routing-types';

describe('PRESET_WEIGHTS', () => {
  it.each(ROUTING_PRESET_IDS)('should give %s a non-negative weight for every signal', (preset) => {
    for (const name of SIGNAL_NAMES) {
      expect(PRESET_WEIGHTS[preset][name]).toBeGreaterThanOrEqual(0);
    }
  });

  it.each([
    { preset: 'default', changed: {} },
    {
      preset: 'link_in_bio',
      changed: { device: 1.2, region_match: 1.5, health: 1.2, deeplink: 0.8 },
    },
    { preset: 'long_form', changed: { deeplink: 1.5, health: 0.6, refund: 0.8, net_trust: 0.8 } },
  ] as const)('should change only the documented weights of $preset', ({ preset, changed }) => {
    for (const name of SIGNAL_NAMES) {
      const expected = (changed as Record<string, number>)[name] ?? (name === 'fx' ? 0 : 1);
      expect(PRESET_WEIGHTS[preset][name]).toBe(expected);
    }
  });
});

describe('PRESET_UTM', () => {
  it.each([
    { preset: 'default', medium: 'affiliate' },
    { preset: 'link_in_bio', medium: 'link_in_bio' },
    { preset: 'long_form', medium: 'long_form' },
  ] as const)('should tag $preset links with medium $medium', ({ preset, medium }) => {
    expect(PRESET_UTM[preset]).toEqual({
      utm_source: 'linkpilot',
      utm_medium: medium,
      utm_campaign: `linkpilot_${preset}`,
    });
  });
});
