import { hash } from 'node:crypto';
import { explorationLaneOf, type RouteLearning } from '../routing/engine';
import type { EdgeVisitor } from './visitor-context';

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

/**
 * A learned creator's visitor's exploration lane on this link today, or null (the best route):
 * also null while the day's visitor secret is unknown, so no visitor explores by accident.
 */
export function explorationLaneFor(
  learning: RouteLearning,
  edge: EdgeVisitor,
  visitorHash: string | null,
  linkId: string,
): number | null {
  if (edge.visitor === null || visitorHash === null || learning.explorationShare <= 0) return null;
  return explorationLaneOf(explorationDrawOf(visitorHash, linkId), learning.explorationShare);
}
