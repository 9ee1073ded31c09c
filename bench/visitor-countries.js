'use strict';
/**
 * The visitor countries the benches draw from: every storefront region the knowledge base
 * routes to, and countries that fall back to another region's storefront.
 */
const COUNTRIES = [
  'US',
  'IN',
  'GB',
  'DE',
  'FR',
  'JP',
  'BR',
  'AE',
  'SG',
  'ZA',
  'NG',
  'MX',
  'AU',
  'CA',
];

module.exports = { COUNTRIES };
