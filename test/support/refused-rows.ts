// Makes a test's database refuse some rows, as PostgreSQL refuses a value its text cannot hold: a trigger on either
// backend, so the same test sees how the store copes with a row the database will not take, wherever the refusal
// comes from.
import { type DatabaseInspector, inspectDatabase } from './db-inspect';

/** The message the database refuses with. */
export const REFUSAL = 'this test refuses the row';

export interface Refusal {
  table: string;
  /** INSERT or UPDATE. */
  on?: 'INSERT' | 'UPDATE';
  /** The condition on NEW, in the SQL both backends share, e.g. "NEW.run_id LIKE '%refuse%'". */
  when: string;
}

let triggers = 0;

/** Installs a trigger that refuses the rows `refusal` describes. */
export async function refuseRows(
  where: { dbPath: string; databaseUrl: string | null },
  refusal: Refusal,
): Promise<void> {
  const db: DatabaseInspector = inspectDatabase(where);
  const name = `refuse_rows_${(triggers += 1)}`;
  const on = refusal.on ?? 'INSERT';
  try {
    if (where.databaseUrl === null) {
      await db.run(`CREATE TRIGGER ${name} BEFORE ${on} ON ${refusal.table} WHEN ${refusal.when}
                    BEGIN SELECT RAISE(ABORT, '${REFUSAL}'); END`);
    } else {
      // 22000 is PostgreSQL's data exception class, the class of the NUL refusal (22021).
      await db.run(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
                    BEGIN
                      IF ${refusal.when} THEN RAISE EXCEPTION '${REFUSAL}' USING ERRCODE = '22000'; END IF;
                      RETURN NEW;
                    END $fn$`);
      await db.run(`CREATE TRIGGER ${name} BEFORE ${on} ON ${refusal.table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    }
  } finally {
    await db.close();
  }
}

/** Refuses the delivery-log rows whose response body holds `marker`. */
export function refuseLogRowsContaining(
  where: { dbPath: string; databaseUrl: string | null },
  marker: string,
): Promise<void> {
  return refuseRows(where, {
    table: 'delivery_attempts',
    when: `NEW.response_excerpt LIKE '%${marker.replace(/'/g, "''")}%'`,
  });
}
