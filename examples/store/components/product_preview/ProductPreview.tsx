import { useComponent } from "@svc/react";
import { styled } from "goober";
import { Suspense } from "react";

export interface ProductPreviewProps {
  name: string;
  price: number;
  description?: string;
  imageUrl?: string;
}

type ProductProps = ProductPreviewProps & { mode?: "list" | "detail" };

const Panel = styled("div")`
  display: grid;
  gap: 20px;
`;

const Label = styled("h3")`
  margin: 0 0 8px;
  font-size: 0.8rem;
  font-weight: 600;
  letter-spacing: 0.06em;
  text-transform: uppercase;
  color: #6b6b6b;
`;

const ListSlot = styled("div")`
  max-width: 260px;
`;

function Views(props: ProductPreviewProps) {
  const Product = useComponent<ProductProps>("store:product");
  return (
    <>
      <section data-testid="preview-list">
        <Label>In the list</Label>
        <ListSlot>
          <Product {...props} mode="list" />
        </ListSlot>
      </section>
      <section data-testid="preview-detail">
        <Label>On its page</Label>
        <Product {...props} mode="detail" />
      </section>
    </>
  );
}

/** What the product being edited will look like, as a card and on its page. */
export default function ProductPreview(props: ProductPreviewProps) {
  return (
    <Panel data-testid="product-preview">
      <Suspense fallback={<p>Loading preview…</p>}>
        <Views {...props} />
      </Suspense>
    </Panel>
  );
}
