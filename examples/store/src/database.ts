import { DatabaseSync } from "node:sqlite";

/** A product as the store sees it. */
export interface Product {
  id: number;
  name: string;
  description: string;
  /** US dollars (stored as whole cents). */
  price: number;
  /** File name below the media directory's `products/`, or null for none. */
  image: string | null;
  /** ISO 8601, UTC. */
  createdAt: string;
}

export interface ProductFields {
  name: string;
  description: string;
  priceCents: number;
  image: string | null;
}

interface ProductRow {
  id: number;
  name: string;
  description: string;
  price_cents: number;
  image: string | null;
  created_at: string;
}

const SCHEMA_VERSION = 1;

const SCHEMA = `
  CREATE TABLE products (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT    NOT NULL CHECK (length(trim(name)) > 0),
    description TEXT    NOT NULL DEFAULT '',
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    image       TEXT,
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  );
`;

/**
 * The products table in a SQLite file (Node's built-in `node:sqlite`). Every write that
 * belongs together runs in {@link ProductDatabase.transaction}.
 */
export class ProductDatabase {
  readonly #db: DatabaseSync;

  /** Opens (or creates) the file; `seed` runs once, in the transaction that creates the schema. */
  constructor(file: string, seed: (db: ProductDatabase) => void = () => {}) {
    this.#db = new DatabaseSync(file);
    this.#db.exec("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;");
    const { user_version: version } = this.#db.prepare("PRAGMA user_version").get() as {
      user_version: number;
    };
    if (version === 0) {
      this.transaction(() => {
        this.#db.exec(SCHEMA);
        seed(this);
        this.#db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      });
    } else if (version !== SCHEMA_VERSION) {
      throw new Error(`${file}: unknown schema version ${version}; delete the file to start over`);
    }
  }

  /**
   * Runs `fn` in one transaction: committed when it returns, rolled back when it throws.
   * `fn` is synchronous, so no other request's statements can interleave with it.
   */
  transaction<T>(fn: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const result = fn();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  list(): Product[] {
    const rows = this.#db.prepare("SELECT * FROM products ORDER BY id").all();
    return (rows as unknown as ProductRow[]).map(toProduct);
  }

  get(id: number): Product | undefined {
    const row = this.#db.prepare("SELECT * FROM products WHERE id = ?").get(id);
    return row === undefined ? undefined : toProduct(row as unknown as ProductRow);
  }

  insert(fields: ProductFields): number {
    const result = this.#db
      .prepare("INSERT INTO products (name, description, price_cents, image) VALUES (?, ?, ?, ?)")
      .run(fields.name, fields.description, fields.priceCents, fields.image);
    return Number(result.lastInsertRowid);
  }

  /** @returns false when there is no product `id`. */
  update(id: number, fields: ProductFields): boolean {
    const result = this.#db
      .prepare(
        "UPDATE products SET name = ?, description = ?, price_cents = ?, image = ? WHERE id = ?",
      )
      .run(fields.name, fields.description, fields.priceCents, fields.image, id);
    return Number(result.changes) === 1;
  }

  /** How many products use the image file `image`. */
  imageUses(image: string): number {
    const row = this.#db
      .prepare("SELECT count(*) AS uses FROM products WHERE image = ?")
      .get(image);
    return Number((row as { uses: number }).uses);
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }
}

function toProduct(row: ProductRow): Product {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    price: row.price_cents / 100,
    image: row.image,
    createdAt: row.created_at,
  };
}
