import { useComponent } from "@svc/react";
import { styled } from "goober";
import { Suspense } from "react";

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

const Heading = styled("h1")`
  margin: 0 0 20px;
  font-size: 1.6rem;
`;

const Grid = styled("ul")`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(220px, 1fr));
  gap: 20px;
`;

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
      <Heading>{title}</Heading>
      {products.length === 0 ? (
        <p>No products yet.</p>
      ) : (
        <Grid data-testid="product-list">
          <Suspense fallback={<li>Loading products…</li>}>
            <Cards products={products} />
          </Suspense>
        </Grid>
      )}
    </section>
  );
}
