import type { EntityManager } from 'typeorm';

declare const transactionBrand: unique symbol;

/**
 * A transaction under way, as a service hands it from one repository to another (the outbox's
 * fan-out writes deliveries in the transaction that marks its events dispatched). Opaque: a
 * service can pass it on but run nothing in it; a repository opens it with managerOf.
 */
export interface Transaction {
  readonly [transactionBrand]: true;
}

export const asTransaction = (manager: EntityManager): Transaction =>
  manager as unknown as Transaction;

export const managerOf = (transaction: Transaction): EntityManager =>
  transaction as unknown as EntityManager;
