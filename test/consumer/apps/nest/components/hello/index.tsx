export default function Hello({ name = "world" }: { name?: string }) {
  return <p>Hello from Nest, {name}!</p>;
}
