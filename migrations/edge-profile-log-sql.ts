/**
 * EdgeProfileChanges1764400000000's trigger function for `creators`, logging a creator to
 * `edge_profile_changes` when one of `columns` (the profile's columns the edge reads) changes:
 * replaced by each migration that adds such a column. Migrations already applied ran this
 * SQL: a change here must leave what it generates for them as it was.
 */
export function edgeProfileLogSql(columns: readonly string[]): string {
  const list = columns.join(', ');
  return `
    CREATE OR REPLACE FUNCTION edge_profile_log_creators() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO edge_profile_changes (creator_id) SELECT DISTINCT id FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO edge_profile_changes (creator_id) SELECT DISTINCT id FROM old_rows;
      ELSE
        INSERT INTO edge_profile_changes (creator_id)
        SELECT DISTINCT id FROM (
          (SELECT ${list} FROM new_rows EXCEPT SELECT ${list} FROM old_rows)
          UNION ALL
          (SELECT ${list} FROM old_rows EXCEPT SELECT ${list} FROM new_rows)
        ) AS changed;
      END IF;
      RETURN NULL;
    END $$`;
}
