export interface CrasherProps {
  shouldThrow?: boolean;
  message?: string;
}

/** Throws during render unless told not to: shows how svc reports a component's errors. */
export default function Crasher({
  shouldThrow = true,
  message = "Crasher exploded on purpose",
}: CrasherProps) {
  if (shouldThrow) throw new Error(message);
  return <p className="svc-crasher">Crasher rendered without throwing.</p>;
}
