/** The score as docs/platforms.md ("People at risk") defines it, for the people who read the ranking. */
export function ScoreExplained() {
  return (
    <section className="card" aria-labelledby="score-heading">
      <h2 id="score-heading" style={{ marginTop: 0 }}>How the score is made</h2>
      <p>
        Over the period, for each user id: <code>score = high-risk + 2 × violations + 5 × sensitive data types + 10 × unsanctioned apps</code>.
        Only people with a score above zero are listed, highest first.
      </p>
      <ul style={{ margin: 0 }}>
        <li><strong>High-risk</strong>: interactions with a risk score of 0.7 or more; each risky prompt counts once.</li>
        <li><strong>Violations</strong>: interactions that a block or coach policy matched (those that raised an alert); your own rules said no or warned, so each counts twice.</li>
        <li><strong>Sensitive data types</strong>: distinct kinds of data detected (email, IBAN, card number…); the breadth of what leaks matters more than repetition, so each counts five times.</li>
        <li><strong>Unsanctioned apps</strong>: distinct AI apps used whose status is now unsanctioned or blocked; each is a new place the data went, so each counts ten times.</li>
      </ul>
    </section>
  );
}
