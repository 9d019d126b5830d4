import { useComponent } from "@svc/react";
import { Suspense } from "react";
import styles from "./ProductPreview.module.css";

export interface ProductPreviewProps {
  name: string;
  price: number;
  description?: string;
  imageUrl?: string;
}

type ProductProps = ProductPreviewProps & { mode?: "list" | "detail" };

function Views(props: ProductPreviewProps) {
  const Product = useComponent<ProductProps>("store:product");
  return (
    <>
      <section data-testid="preview-list">
        <h3 className={styles.label}>In the list</h3>
        <div className={styles.listSlot}>
          <Product {...props} mode="list" />
        </div>
      </section>
      <section data-testid="preview-detail">
        <h3 className={styles.label}>On its page</h3>
        <Product {...props} mode="detail" />
      </section>
    </>
  );
}

/** What the product being edited will look like, as a card and on its page. */
export default function ProductPreview(props: ProductPreviewProps) {
  return (
    <div className={styles.panel} data-testid="product-preview">
      <Suspense fallback={<p>Loading preview…</p>}>
        <Views {...props} />
      </Suspense>
    </div>
  );
}
