import type { components } from '@sdk/generated/openapi.js';
import { Link } from 'react-router';
import { formatNumber } from '../../components/ui.js';
import { interactionsLink, type Range } from '../overview/links.js';

type Person = components['schemas']['PersonRisk'];

/** A page of the ranking, in the API's order; each user id opens that person's interactions of the period. */
export function PeopleTable({ people, firstRank, range }: { people: Person[]; firstRank: number; range: Range }) {
  return (
    <table className="data" aria-label="People at risk">
      <thead>
        <tr>
          <th scope="col" className="num">Rank</th>
          <th scope="col">User ID</th>
          <th scope="col" className="num">Score</th>
          <th scope="col" className="num">High-risk interactions</th>
          <th scope="col" className="num">Violations</th>
          <th scope="col" className="num">Sensitive data types</th>
          <th scope="col" className="num">Unsanctioned apps</th>
        </tr>
      </thead>
      <tbody>
        {people.map((person, index) => (
          <tr key={person.user_id}>
            <td className="num">{formatNumber(firstRank + index)}</td>
            <th scope="row" style={{ fontWeight: 'normal', background: 'none' }}>
              <Link
                className="mono"
                to={interactionsLink(range, { user_id: person.user_id })}
                title={`The interactions of user ${person.user_id} in the period`}
              >
                {person.user_id}
              </Link>
            </th>
            <td className="num"><strong>{formatNumber(person.score)}</strong></td>
            <td className="num">{formatNumber(person.high_risk)}</td>
            <td className="num">{formatNumber(person.violations)}</td>
            <td className="num">{formatNumber(person.sensitive_types)}</td>
            <td className="num">{formatNumber(person.unsanctioned_platforms)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
