import fr from '@foyer/contract/lang/fr.json';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Providers } from '../../test/harness';
import { NewPasswordField } from './strength-meter';
import { loadEstimator, personalInputs, usePasswordStrength } from './use-password-strength';

beforeAll(async () => {
  await loadEstimator();
}, 30_000);

function Field({ inputs = [] }: { inputs?: string[] }) {
  const [value, setValue] = useState('');
  const strength = usePasswordStrength(value, inputs);
  return <NewPasswordField label="Secret" value={value} onValueChange={setValue} strength={strength} />;
}

describe('personal inputs for the strength check', () => {
  it('takes the names alone and run together, the email and its parts, and the product name', () => {
    expect(personalInputs({ names: [' Ann ', 'Lee-Smith'], email: 'Ann.Lee@Example.co.uk', productName: 'Foyer' }).sort()).toEqual(
      [
        'ann',
        'lee-smith',
        'lee',
        'smith',
        'annlee-smith',
        'lee-smithann',
        'ann.lee-smith',
        'lee-smith.ann',
        'ann lee-smith',
        'lee-smith ann',
        'ann.lee@example.co.uk',
        'ann.lee',
        'example',
        'foyer',
      ].sort(),
    );
  });

  it('leaves out pieces too short to mean anything', () => {
    expect(personalInputs({ names: ['Al', ''], email: 'al@x.io' })).toEqual(['al@x.io']);
  });
});

describe('strength meter (spec §2, §5)', () => {
  it('is an empty polite region until there is a password, then a meter with the verdict', async () => {
    const { container } = render(
      <Providers>
        <Field />
      </Providers>,
    );
    const region = container.querySelector('.strength[aria-live="polite"]');
    expect(region).toHaveAttribute('aria-atomic', 'true');
    expect(region).toBeEmptyDOMElement();
    expect(screen.getByLabelText('Secret')).not.toHaveAttribute('aria-describedby');

    await userEvent.setup().type(screen.getByLabelText('Secret'), 'aaaaaaaaaa');
    const meter = await screen.findByRole('meter', { name: 'Password strength' });
    expect(meter).toHaveAttribute('aria-valuemin', '0');
    expect(meter).toHaveAttribute('aria-valuemax', '4');
    expect(meter).toHaveAttribute('aria-valuenow', '0');
    expect(region).toHaveTextContent('Password strength: Very weak');
    expect(region).toHaveTextContent('Repeated characters like "aaa" are easy to guess.');
    expect(region).toHaveTextContent('Avoid repeated words and characters.');
    expect(screen.getByLabelText('Secret')).toHaveAccessibleDescription(expect.stringContaining('Password strength: Very weak'));
  });

  it('speaks the visitor’s language, from our dictionaries', async () => {
    render(
      <Providers languages={['fr']} inline={{ locale: 'fr', messages: fr }}>
        <Field />
      </Providers>,
    );
    await userEvent.setup().type(screen.getByLabelText('Secret'), 'password1');
    const meter = await screen.findByRole('meter', { name: fr['strength.label'] });
    expect(meter).toHaveAttribute('aria-valuetext', fr['strength.0']);
    expect(screen.getByText(fr['strength.warning.common'])).toBeInTheDocument();
    expect(screen.getByText(fr['strength.suggestion.anotherWord'])).toBeInTheDocument();
  });

  it('rates 0–4 and passes from 3', async () => {
    const estimator = await loadEstimator();
    expect(estimator.estimate('password1', [], 256).score).toBe(0);
    expect(estimator.estimate('velvet harbor lantern', [], 256).score).toBeGreaterThanOrEqual(3);
    expect(estimator.estimate('bartholomew2024', ['bartholomew'], 256).warning).toBe('strength.warning.userInputs');
  });
});

describe('the verdict a form validates with', () => {
  it('never passes an earlier password’s verdict off as the current one’s while the meter catches up', async () => {
    const renders: Array<{ password: string; passes: boolean | undefined }> = [];
    function Probe({ password }: { password: string }) {
      const strength = usePasswordStrength(password, []);
      strength.activate();
      renders.push({ password, passes: strength.passes });
      return null;
    }
    const { rerender } = render(<Probe password="weakpass" />);
    await vi.waitFor(() => expect(renders.at(-1)).toEqual({ password: 'weakpass', passes: false }));
    // A password manager's fill: the whole value changes in one event.
    rerender(<Probe password="second violet harbour 9" />);
    await vi.waitFor(() => expect(renders.at(-1)).toEqual({ password: 'second violet harbour 9', passes: true }));
    const strong = renders.filter((entry) => entry.password === 'second violet harbour 9');
    expect(strong.map((entry) => entry.passes)).not.toContain(false);
  });
});
