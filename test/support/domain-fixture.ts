import { readPointer, successStatusOf, type ParameterFixtures } from './openapi-examples';

/**
 * The domain routes' `{id}` for a caller that runs every operation in turn (the browser test):
 * the documented `POST /domains` example names one hostname, which the caller already holds
 * once that operation has run (409 `DOMAIN_TAKEN`), so each id comes from a domain of its own.
 */
export function domainFixtures(): ParameterFixtures {
  let made = 0;
  const newDomainId: ParameterFixtures[string] = async (runner) => {
    const create = runner.operationById('DomainsController_create');
    made += 1;
    const answer = await runner.run(create, { hostname: `fixture-${made}.example.com` }, {});
    if (answer.status !== successStatusOf(create)) {
      throw new Error(`${create.name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
    return { id: String(readPointer(answer.body, '/data/domain/id')) };
  };
  return {
    DomainsController_get: newDomainId,
    DomainsController_remove: newDomainId,
    DomainsController_verify: newDomainId,
  };
}
