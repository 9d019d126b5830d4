import { styled } from "goober";
import { formatPrice } from "./formatPrice";

export interface ProductProps {
  name: string;
  price: number;
  description?: string;
  imageUrl?: string;
  /** Where the card links to (list mode). Without it the card is not a link. */
  url?: string;
  mode?: "list" | "detail";
}

const Card = styled("article")`
  display: flex;
  flex-direction: column;
  height: 100%;
  border: 1px solid #e2e2e2;
  border-radius: 10px;
  overflow: hidden;
  background: #fff;
  transition: box-shadow 120ms ease;
  &:hover {
    box-shadow: 0 4px 14px rgba(0, 0, 0, 0.12);
  }
  & > a {
    color: inherit;
    text-decoration: none;
    display: flex;
    flex-direction: column;
    height: 100%;
  }
`;

const Picture = styled("img")`
  display: block;
  width: 100%;
  aspect-ratio: 4 / 3;
  object-fit: cover;
  background: #f1f1f1;
`;

const Body = styled("div")`
  padding: 12px 14px 16px;
  display: flex;
  flex-direction: column;
  gap: 6px;
`;

const Name = styled("h3")`
  margin: 0;
  font-size: 1.05rem;
  font-weight: 600;
`;

const Price = styled("span")`
  font-variant-numeric: tabular-nums;
  font-weight: 600;
  color: #1d6f42;
`;

const Detail = styled("article")`
  display: grid;
  grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
  gap: 32px;
  align-items: start;
  @media (max-width: 720px) {
    grid-template-columns: 1fr;
  }
  & img {
    border-radius: 12px;
  }
`;

const Title = styled("h1")`
  margin: 0 0 8px;
  font-size: 2rem;
`;

const BigPrice = styled("p")`
  margin: 0 0 16px;
  font-size: 1.5rem;
  font-weight: 600;
  color: #1d6f42;
`;

const Description = styled("p")`
  margin: 0;
  line-height: 1.6;
  white-space: pre-line;
`;

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
      <Detail data-testid="product-detail">
        {imageUrl ? <Picture src={imageUrl} alt={displayName} /> : null}
        <div>
          <Title data-testid="product-name">{displayName}</Title>
          <BigPrice data-testid="product-price">{formatPrice(price)}</BigPrice>
          <Description data-testid="product-description">{description}</Description>
        </div>
      </Detail>
    );
  }
  const content = (
    <>
      {imageUrl ? <Picture src={imageUrl} alt={displayName} /> : null}
      <Body>
        <Name data-testid="product-name">{displayName}</Name>
        <Price data-testid="product-price">{formatPrice(price)}</Price>
      </Body>
    </>
  );
  return <Card data-testid="product-card">{url ? <a href={url}>{content}</a> : content}</Card>;
}
