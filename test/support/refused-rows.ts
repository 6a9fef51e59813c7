// Makes a test's database refuse the delivery-log rows whose response body holds a marker, as PostgreSQL refuses a
// value its text cannot hold: a trigger on either backend, so the same test sees how the store copes with a row
// the database will not take, wherever the refusal comes from.
import { type DatabaseInspector, inspectDatabase } from './db-inspect';

/** The message the database refuses with. */
export const REFUSAL = 'this test refuses the row';

export async function refuseLogRowsContaining(
  where: { dbPath: string; databaseUrl: string | null },
  marker: string,
): Promise<void> {
  const db: DatabaseInspector = inspectDatabase(where);
  const pattern = `%${marker}%`.replace(/'/g, "''");
  try {
    if (where.databaseUrl === null) {
      await db.run(`CREATE TRIGGER refuse_marked_rows BEFORE INSERT ON delivery_attempts
                     WHEN NEW.response_excerpt LIKE '${pattern}'
                    BEGIN SELECT RAISE(ABORT, '${REFUSAL}'); END`);
    } else {
      // 22000 is PostgreSQL's data exception class, the class of the NUL refusal (22021).
      await db.run(`CREATE FUNCTION refuse_marked_rows() RETURNS trigger LANGUAGE plpgsql AS $fn$
                    BEGIN
                      IF NEW.response_excerpt LIKE '${pattern}' THEN
                        RAISE EXCEPTION '${REFUSAL}' USING ERRCODE = '22000';
                      END IF;
                      RETURN NEW;
                    END $fn$`);
      await db.run(`CREATE TRIGGER refuse_marked_rows BEFORE INSERT ON delivery_attempts
                    FOR EACH ROW EXECUTE FUNCTION refuse_marked_rows()`);
    }
  } finally {
    await db.close();
  }
}
