/** What the edge needs of a verified branded domain. */
export interface VerifiedHost {
  id: string;
  hostname: string;
  notFoundUrl: string | null;
}
