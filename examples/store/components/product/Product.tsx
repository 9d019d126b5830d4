import { formatPrice } from "./formatPrice";
import styles from "./Product.module.css";

export interface ProductProps {
  name: string;
  price: number;
  description?: string;
  imageUrl?: string;
  /** Where the card links to (list mode). Without it the card is not a link. */
  url?: string;
  mode?: "list" | "detail";
}

/** One product: a card for lists (`mode: "list"`) or the full detail view. */
export default function Product({
  name,
  price,
  description = "",
  imageUrl,
  url,
  mode = "list",
}: ProductProps) {
  const displayName = name.trim() === "" ? "Untitled product" : name;
  if (mode === "detail") {
    return (
      <article className={styles.detail} data-testid="product-detail">
        {imageUrl ? <img className={styles.picture} src={imageUrl} alt={displayName} /> : null}
        <div>
          <h1 className={styles.title} data-testid="product-name">
            {displayName}
          </h1>
          <p className={styles.bigPrice} data-testid="product-price">
            {formatPrice(price)}
          </p>
          <p className={styles.description} data-testid="product-description">
            {description}
          </p>
        </div>
      </article>
    );
  }
  const content = (
    <>
      {imageUrl ? <img className={styles.picture} src={imageUrl} alt={displayName} /> : null}
      <div className={styles.body}>
        <h3 className={styles.name} data-testid="product-name">
          {displayName}
        </h3>
        <span className={styles.price} data-testid="product-price">
          {formatPrice(price)}
        </span>
      </div>
    </>
  );
  return (
    <article className={styles.card} data-testid="product-card">
      {url ? <a href={url}>{content}</a> : content}
    </article>
  );
}
