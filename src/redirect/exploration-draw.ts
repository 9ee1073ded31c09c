import { hash } from 'node:crypto';

/**
 * A visitor's draw for learned routing's exploration on one link, uniform in [0, 1): from the
 * visitor's daily hash (VisitorHasherService, keyed by a secret of the day), so the same visitor
 * draws the same on the link all day (one route, not a different one per click), anew the next
 * day, and no visitor can choose their draw.
 */
export function explorationDrawOf(visitorHash: string, linkId: string): number {
  const digest = hash('sha1', `${visitorHash}|${linkId}`, 'hex');
  return Number.parseInt(digest.slice(0, 12), 16) / 2 ** 48;
}
