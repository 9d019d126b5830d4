import { useComponent } from "@svc/react";
import { Suspense } from "react";
import styles from "./ProductList.module.css";

export interface ListedProduct {
  id: number;
  name: string;
  price: number;
  description?: string;
  imageUrl?: string;
  url?: string;
}

export interface ProductListProps {
  products: ListedProduct[];
  title?: string;
}

/** The props of `store:product`, which this component loads at run time. */
type ProductProps = Omit<ListedProduct, "id"> & { mode?: "list" | "detail" };

function Cards({ products }: { products: ListedProduct[] }) {
  // Loaded once for every card: useComponent shares one fetch and caches the module.
  const Product = useComponent<ProductProps>("store:product");
  return products.map(({ id, ...product }) => (
    <li key={id}>
      <Product {...product} mode="list" />
    </li>
  ));
}

/** A grid of product cards, each rendered by `store:product`. */
export default function ProductList({ products, title = "Products" }: ProductListProps) {
  return (
    <section>
      <h1 className={styles.heading}>{title}</h1>
      {products.length === 0 ? (
        <p>No products yet.</p>
      ) : (
        <ul className={styles.grid} data-testid="product-list">
          <Suspense fallback={<li>Loading products…</li>}>
            <Cards products={products} />
          </Suspense>
        </ul>
      )}
    </section>
  );
}
