import { compile } from '@fastify/proxy-addr';
import { LRUCache } from 'lru-cache';

/** proxy-addr's trust function: is the hop-th address a trusted proxy? */
export type TrustFunction = (address: string, hop: number) => boolean;

/**
 * The TRUST_PROXY list as a trust function for Fastify and the edge redirector. Our entries
 * (addresses, CIDR blocks, named ranges) never depend on the hop, so answers are remembered
 * per address: without that, every click parses its peer's and its client's address again.
 */
export function compileTrustProxy(entries: string[]): TrustFunction {
  const isTrusted = compile(entries);
  const answers = new LRUCache<string, boolean>({ max: 50_000 });
  return (address) => {
    let answer = answers.get(address);
    if (answer === undefined) {
      answer = isTrusted(address, 0);
      answers.set(address, answer);
    }
    return answer;
  };
}
