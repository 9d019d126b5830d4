import { styled } from "goober";

export interface GreetingProps {
  name?: string;
  greeting?: string;
}

const Title = styled("h2")`
  font-family: system-ui, sans-serif;
  font-weight: 600;
  margin: 0;
`;

export default function Greeting({ name = "world", greeting = "Hello" }: GreetingProps) {
  return (
    <Title className="svc-greeting">
      {greeting}, {name}!
    </Title>
  );
}
