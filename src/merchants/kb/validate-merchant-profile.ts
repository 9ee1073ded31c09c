import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import {
  canonicaliseUrl,
  compilePathRule,
  matchesParamPattern,
  templateGroupNames,
} from './canonicalise-url';
import {
  IN_HOUSE_NETWORK_BY_MERCHANT,
  type KbProblem,
  type MerchantProfile,
  type NetworkId,
} from './merchant-profile';
import merchantProfileSchema from './merchant-profile.schema.json';

const IN_HOUSE_NETWORK_IDS: ReadonlySet<string> = new Set(
  Object.values(IN_HOUSE_NETWORK_BY_MERCHANT),
);

// Annotation the schema puts beside a value constraint to name the knowledge-base rule it enforces.
const RULE_KEYWORD = 'x-kb-rule';
// Failures of these keywords are about shape, whatever the annotation says.
const STRUCTURAL_KEYWORDS = new Set(['type', 'required', 'additionalProperties']);

let validateSchema: ValidateFunction | undefined;

function compileSchema(): ValidateFunction {
  if (validateSchema === undefined) {
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addKeyword({ keyword: RULE_KEYWORD, schemaType: 'string' });
    validateSchema = ajv.compile(merchantProfileSchema);
  }
  return validateSchema;
}

/** True when `value` has the profile's shape (the JSON Schema alone, no semantic rule). */
export function hasMerchantProfileShape(value: unknown): value is MerchantProfile {
  return compileSchema()(value);
}

/**
 * Every problem of one profile: the JSON Schema first, then (only for a profile of the right
 * shape) the semantic rules. `fileName` is the profile's file name, e.g. `amazon.json`.
 */
export function validateMerchantProfile(profile: unknown, fileName: string): KbProblem[] {
  const file = baseName(fileName);
  const validate = compileSchema();
  if (!validate(profile)) {
    return (validate.errors ?? [])
      .filter((error) => error.keyword !== 'propertyNames')
      .map((error) => toSchemaProblem(file, error));
  }
  const checked = profile as MerchantProfile;
  const problems: KbProblem[] = [];
  const report = (field: string, rule: string, message: string): void => {
    problems.push({ file, field, rule, message });
  };
  checkFileName(checked, file, report);
  checkHostnames(checked, report);
  checkNetworks(checked, report);
  checkRegionContents(checked, report);
  checkRedundantParams(checked, report);
  if (checkPathRules(checked, report)) {
    checkExamples(checked, report);
  }
  return problems;
}

type Report = (field: string, rule: string, message: string) => void;

function checkFileName(profile: MerchantProfile, file: string, report: Report): void {
  if (file.replace(/\.json$/, '') !== profile.merchantId) {
    report(
      'merchantId',
      'file-name',
      `merchantId "${profile.merchantId}" must live in ${profile.merchantId}.json`,
    );
  }
}

function checkHostnames(profile: MerchantProfile, report: Report): void {
  const owner = new Map<string, string>();
  for (const [key, region] of Object.entries(profile.regions)) {
    if (!region.hostnames.includes(region.storefront)) {
      report(
        `regions.${key}.storefront`,
        'storefront-hostname',
        `storefront ${region.storefront} is not one of the region's hostnames`,
      );
    }
    for (const hostname of region.hostnames) {
      const other = owner.get(hostname);
      if (other === undefined) {
        owner.set(hostname, key);
      } else {
        report(
          `regions.${key}.hostnames`,
          'hostname-region',
          `${hostname} is already listed by region ${other}; a hostname must belong to one region`,
        );
      }
    }
  }
  const domains = new Set(profile.domains);
  const missing = [...owner.keys()].filter((hostname) => !domains.has(hostname));
  const extra = profile.domains.filter((domain) => !owner.has(domain));
  if (missing.length > 0) {
    report('domains', 'domains-union', `domains lacks region hostnames: ${missing.join(', ')}`);
  }
  if (extra.length > 0) {
    report(
      'domains',
      'domains-union',
      `domains lists hostnames no region serves: ${extra.join(', ')}`,
    );
  }
}

function checkNetworks(profile: MerchantProfile, report: Report): void {
  if (profile.programType === 'direct') {
    checkDirectProgramme(profile, report);
  } else {
    checkNetworkProgramme(profile, report);
  }
  for (const [key, region] of Object.entries(profile.regions)) {
    region.preferredNetworks.forEach((networkId, index) => {
      if (!((region.epcHints[networkId] ?? 0) > 0)) {
        report(
          `regions.${key}.preferredNetworks[${index}]`,
          'preferred-networks',
          `${networkId} is preferred but has no positive EPC hint in region ${key}`,
        );
      }
    });
  }
}

function checkDirectProgramme(profile: MerchantProfile, report: Report): void {
  const rule = 'direct-programme';
  if (profile.supportedNetworks.length > 0) {
    report('supportedNetworks', rule, 'a direct programme lists no supported networks');
  }
  if (profile.merchantCapabilities.multiNetworkRouting) {
    report('merchantCapabilities.multiNetworkRouting', rule, 'a direct programme has one network');
  }
  const own = IN_HOUSE_NETWORK_BY_MERCHANT[profile.merchantId] as NetworkId | undefined;
  if (own === undefined) {
    report('programType', rule, `${profile.merchantId} has no in-house programme id`);
    return;
  }
  for (const [key, region] of Object.entries(profile.regions)) {
    for (const networkId of Object.keys(region.epcHints)) {
      if (networkId !== own) {
        report(
          `regions.${key}.epcHints.${networkId}`,
          rule,
          `${profile.merchantId} routes only through ${own}, not ${networkId}`,
        );
      }
    }
    if (region.epcHints[own] === undefined) {
      report(`regions.${key}.epcHints.${own}`, rule, `missing hint for ${own} (0 if unavailable)`);
    }
  }
}

function checkNetworkProgramme(profile: MerchantProfile, report: Report): void {
  if (profile.supportedNetworks.length === 0) {
    report('supportedNetworks', 'network-programme', 'a network programme needs a network');
  }
  profile.supportedNetworks.forEach((networkId, index) => {
    if (IN_HOUSE_NETWORK_IDS.has(networkId)) {
      report(
        `supportedNetworks[${index}]`,
        'network-programme',
        `${networkId} is another merchant's in-house programme`,
      );
    }
  });
  const supported = new Set<string>(profile.supportedNetworks);
  for (const [key, region] of Object.entries(profile.regions)) {
    for (const networkId of Object.keys(region.epcHints)) {
      if (!supported.has(networkId)) {
        report(
          `regions.${key}.epcHints.${networkId}`,
          'network-hints',
          `${networkId} has a hint but is not in supportedNetworks`,
        );
      }
    }
    for (const networkId of profile.supportedNetworks) {
      if (region.epcHints[networkId] === undefined) {
        report(
          `regions.${key}.epcHints.${networkId}`,
          'network-hints',
          `supported network ${networkId} has no hint in region ${key} (0 if unavailable)`,
        );
      }
    }
  }
}

function checkRegionContents(profile: MerchantProfile, report: Report): void {
  const sold = new Set<string>(profile.categories);
  for (const [key, region] of Object.entries(profile.regions)) {
    for (const category of Object.keys(region.categoryMultipliers)) {
      if (!sold.has(category)) {
        report(
          `regions.${key}.categoryMultipliers.${category}`,
          'category-scope',
          `${category} has a multiplier but is not in categories`,
        );
      }
    }
  }
  profile.bannedMarkets.forEach((market, index) => {
    if (profile.regions[market] !== undefined) {
      report(`bannedMarkets[${index}]`, 'banned-market', `banned market ${market} has a region`);
    }
  });
}

/** True when every rule compiles and names only groups it defines. */
function checkPathRules(profile: MerchantProfile, report: Report): boolean {
  let isUsable = true;
  profile.canonicalization.pathRules.forEach((rule, index) => {
    const field = `canonicalization.pathRules[${index}]`;
    try {
      compilePathRule(rule);
    } catch (error) {
      isUsable = false;
      report(`${field}.match`, 'path-rule', `does not compile: ${(error as Error).message}`);
      return;
    }
    const defined = new Set(
      [...rule.match.matchAll(/\(\?<([A-Za-z_$][\w$]*)>/g)].map((match) => match[1]),
    );
    const unknown = templateGroupNames(rule.canonicalPath).filter((name) => !defined.has(name));
    if (unknown.length > 0) {
      isUsable = false;
      report(`${field}.canonicalPath`, 'path-rule', `uses undefined groups: ${unknown.join(', ')}`);
    }
  });
  return isUsable;
}

// A redundant-param rule must be able to fire: its param kept somewhere, its group defined.
function checkRedundantParams(profile: MerchantProfile, report: Report): void {
  const { pathRules, keepParams, dropParams, redundantParams = [] } = profile.canonicalization;
  const groupNames = new Set(
    pathRules.flatMap((rule) =>
      [...rule.match.matchAll(/\(\?<([A-Za-z_$][\w$]*)>/g)].map((match) => match[1]),
    ),
  );
  redundantParams.forEach((rule, index) => {
    const field = `canonicalization.redundantParams[${index}]`;
    const isKeptSomewhere =
      (keepParams === null
        ? !matchesParamPattern(rule.param, dropParams)
        : matchesParamPattern(rule.param, keepParams)) ||
      pathRules.some((pathRule) => matchesParamPattern(rule.param, pathRule.keepParams ?? []));
    if (rule.defaultValues === undefined && rule.sameAsPathGroup === undefined) {
      report(field, 'redundant-param', 'needs defaultValues, sameAsPathGroup or both');
    }
    if (!isKeptSomewhere) {
      report(
        `${field}.param`,
        'redundant-param',
        `${rule.param} is never kept, so never redundant`,
      );
    }
    if (rule.sameAsPathGroup !== undefined && !groupNames.has(rule.sameAsPathGroup)) {
      report(
        `${field}.sameAsPathGroup`,
        'redundant-param',
        `no path rule defines a group named ${rule.sameAsPathGroup}`,
      );
    }
  });
}

function checkExamples(profile: MerchantProfile, report: Report): void {
  profile.canonicalization.examples.forEach((example, index) => {
    const field = `canonicalization.examples[${index}]`;
    let result;
    try {
      result = canonicaliseUrl(profile, example.input);
    } catch (error) {
      report(`${field}.input`, 'example', `not a usable URL: ${(error as Error).message}`);
      return;
    }
    if (result.region === null) {
      report(
        `${field}.input`,
        'example',
        `host of ${example.input} is not one of ${profile.merchantId}'s`,
      );
      return;
    }
    if (result.canonicalUrl !== example.canonical) {
      report(
        `${field}.canonical`,
        'example',
        `expected ${example.canonical}, canonicaliser gives ${result.canonicalUrl}`,
      );
      return;
    }
    const again = canonicaliseUrl(profile, example.canonical).canonicalUrl;
    if (again !== example.canonical) {
      report(`${field}.canonical`, 'example', `not stable: canonicalises again to ${again}`);
    }
  });
}

function toSchemaProblem(file: string, error: ErrorObject): KbProblem {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.propertyName !== undefined) {
    segments.push(error.propertyName);
  }
  const params = error.params as Record<string, unknown>;
  for (const extra of [params.missingProperty, params.additionalProperty]) {
    if (typeof extra === 'string') {
      segments.push(extra);
    }
  }
  const field = segments.reduce(
    (path, segment) =>
      /^\d+$/.test(segment) ? `${path}[${segment}]` : path === '' ? segment : `${path}.${segment}`,
    '',
  );
  const annotated: unknown = error.parentSchema?.[RULE_KEYWORD];
  const rule =
    typeof annotated === 'string' && !STRUCTURAL_KEYWORDS.has(error.keyword) ? annotated : 'schema';
  const subject =
    error.propertyName === undefined ? '' : ` (property name "${error.propertyName}")`;
  return {
    file,
    field: field || '(root)',
    rule,
    message: `${error.message ?? 'invalid'}${subject}`,
  };
}

function baseName(fileName: string): string {
  return fileName.split(/[\\/]/).pop() ?? fileName;
}
