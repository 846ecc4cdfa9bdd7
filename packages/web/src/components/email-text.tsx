/**
 * An email address in running text. A line may break only after the `@` and before a dot, never
 * at a hyphen: `ann-marie@ex-ample.com` split after `ann-` reads as two addresses, or as a typo.
 * Each piece keeps together; one longer than the line may still break anywhere, as a last resort.
 */
export function EmailText({ email, className }: { email: string; className?: string }) {
  const pieces = email.split(/(?<=@)|(?=\.)/);
  return (
    <span className={['email', className ?? ''].filter(Boolean).join(' ')}>
      {pieces.map((piece, index) => (
        // Pieces may repeat (`.co.co`); their position is their identity.
        <span key={index}>
          {index === 0 ? null : <wbr />}
          <span className="email-piece">{piece}</span>
        </span>
      ))}
    </span>
  );
}
