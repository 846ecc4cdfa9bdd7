import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { Providers } from '../test/harness';
import { Alert } from './alert';
import { Button } from './button';
import { ErrorText } from './error-text';
import { setCallTimeout } from '../lib/api';
import { EmailText } from './email-text';
import { Spinner } from './spinner';
import { TextField, type TextFieldProps } from './text-field';

function Field(props: Partial<TextFieldProps>) {
  const [value, setValue] = useState(props.value ?? '');
  return <TextField label="Secret" {...props} value={value} onValueChange={setValue} />;
}

// No router around them: the shared components are used on sign-in, which runs without one.
function renderWithProviders(ui: React.ReactNode) {
  return render(<Providers>{ui}</Providers>);
}

describe('TextField (spec §2)', () => {
  it('toggles a password between hidden and shown; the changing name alone tells the state', async () => {
    renderWithProviders(<Field type="password" />);
    const user = userEvent.setup();
    const input = screen.getByLabelText('Secret');
    expect(input).toHaveAttribute('type', 'password');

    const show = screen.getByRole('button', { name: 'Show password' });
    // A pressed state as well would be announced on top of the name: said twice.
    expect(show).not.toHaveAttribute('aria-pressed');
    await user.click(show);

    expect(input).toHaveAttribute('type', 'text');
    const hide = screen.getByRole('button', { name: 'Hide password' });
    expect(hide).not.toHaveAttribute('aria-pressed');
    await user.click(hide);
    expect(input).toHaveAttribute('type', 'password');
  });

  it('says so while Caps Lock is on in a password field, and not in others', async () => {
    renderWithProviders(
      <>
        <Field type="password" />
        <TextField label="Name" value="" onValueChange={() => undefined} />
      </>,
    );
    const user = userEvent.setup();
    const input = screen.getByLabelText('Secret');
    await user.click(input);
    await user.keyboard('a');
    expect(screen.queryByText('Caps Lock is on')).not.toBeInTheDocument();

    await user.keyboard('{CapsLock}A');
    const notice = screen.getByText('Caps Lock is on');
    // In a polite live region that is always there, so it is announced as it appears.
    expect(notice.closest('[aria-live="polite"]')).not.toBeNull();
    expect(input).toHaveAccessibleDescription('Caps Lock is on');

    await user.keyboard('{CapsLock}a');
    expect(screen.queryByText('Caps Lock is on')).not.toBeInTheDocument();
    expect(input).not.toHaveAttribute('aria-describedby');

    // Leaving the field drops the notice too; a text field never shows it.
    await user.keyboard('{CapsLock}A');
    expect(screen.getByText('Caps Lock is on')).toBeInTheDocument();
    await user.click(screen.getByLabelText('Name'));
    await user.keyboard('B');
    expect(screen.queryByText('Caps Lock is on')).not.toBeInTheDocument();
  });

  it('shows the toggle tooltip on hover and on focus', async () => {
    renderWithProviders(<Field type="password" />);
    const user = userEvent.setup();
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
    await user.hover(screen.getByRole('button', { name: 'Show password' }));
    expect(screen.getByRole('tooltip')).toHaveTextContent('Show password');
    await user.unhover(screen.getByRole('button', { name: 'Show password' }));
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();

    await user.click(screen.getByLabelText('Secret'));
    await user.tab();
    expect(screen.getByRole('button', { name: 'Show password' })).toHaveFocus();
    expect(screen.getByRole('tooltip')).toHaveTextContent('Show password');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
  });

  it('clears its text with the clear button and returns focus to the input', async () => {
    renderWithProviders(<Field clearable />);
    const user = userEvent.setup();
    expect(screen.queryByRole('button', { name: 'Clear this text field' })).not.toBeInTheDocument();
    await user.type(screen.getByLabelText('Secret'), 'hello');
    await user.click(screen.getByRole('button', { name: 'Clear this text field' }));
    expect(screen.getByLabelText('Secret')).toHaveValue('');
    expect(screen.getByLabelText('Secret')).toHaveFocus();
    expect(screen.queryByRole('button', { name: 'Clear this text field' })).not.toBeInTheDocument();
  });

  it('marks the error state on the input and links the message', () => {
    renderWithProviders(<Field validity="error" message="Email address is not valid" />);
    const input = screen.getByLabelText('Secret');
    expect(input).toBeInvalid();
    expect(input).toHaveAccessibleDescription('Email address is not valid');
  });

  it('shows the success state without marking the input invalid', () => {
    renderWithProviders(<Field validity="success" message="Looks good" />);
    const input = screen.getByLabelText('Secret');
    expect(input).not.toHaveAttribute('aria-invalid');
    expect(input).toHaveAccessibleDescription('Looks good');
  });

  it('passes autoComplete, required and disabled through', () => {
    renderWithProviders(<Field type="password" autoComplete="new-password" required disabled />);
    const input = screen.getByLabelText('Secret');
    expect(input).toHaveAttribute('autocomplete', 'new-password');
    expect(input).toBeRequired();
    expect(input).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Show password' })).toBeDisabled();
  });
});

describe('Button (spec §2)', () => {
  it('is busy and disabled while loading, with the spinner hidden from the accessibility tree', () => {
    const onClick = vi.fn();
    renderWithProviders(
      <Button loading onClick={onClick}>
        Save
      </Button>,
    );
    const button = screen.getByRole('button', { name: 'Save' });
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute('aria-busy', 'true');
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    fireEvent.click(button);
    expect(onClick).not.toHaveBeenCalled();
  });

  it('renders an internal link (a plain full-page link), an external link and a button', () => {
    renderWithProviders(
      <>
        <Button to="/sign-up?from=%2Fhome">Inside</Button>
        <Button href="https://www.foyer.test/terms" target="_blank">
          Outside
        </Button>
        <Button type="submit" variant="danger">
          Act
        </Button>
      </>,
    );
    const inside = screen.getByRole('link', { name: 'Inside' });
    expect(inside).toHaveAttribute('href', '/sign-up?from=%2Fhome');
    expect(inside).not.toHaveAttribute('target');
    const outside = screen.getByRole('link', { name: 'Outside' });
    expect(outside).toHaveAttribute('target', '_blank');
    expect(outside).toHaveAttribute('rel', 'noopener noreferrer');
    expect(screen.getByRole('button', { name: 'Act' })).toHaveAttribute('type', 'submit');
  });

  it('describes itself with its tooltip', async () => {
    renderWithProviders(<Button tooltip="Opens in a new tab">Terms</Button>);
    const button = screen.getByRole('button', { name: 'Terms' });
    expect(button).toHaveAccessibleDescription('Opens in a new tab');
    await userEvent.setup().hover(button);
    expect(screen.getByRole('tooltip')).toHaveTextContent('Opens in a new tab');
  });

  it('a disabled link is not followable', () => {
    renderWithProviders(
      <Button to="/sign-up" disabled>
        Inside
      </Button>,
    );
    expect(screen.getByText('Inside').closest('a')).not.toHaveAttribute('href');
    expect(screen.getByText('Inside').closest('a')).toHaveAttribute('aria-disabled', 'true');
  });
});

describe('Spinner and Alert (spec §2)', () => {
  it('announces loading at 40 px by default, or its title', () => {
    renderWithProviders(
      <>
        <Spinner />
        <Spinner title="Signing into Community" colour="rgb(15, 118, 110)" size={24} />
      </>,
    );
    const [plain, titled] = screen.getAllByRole('status');
    expect(plain).toHaveTextContent('Loading…');
    expect(plain?.querySelector('svg')).toHaveAttribute('width', '40');
    expect(titled).toHaveTextContent('Signing into Community');
    expect(titled).toHaveStyle({ color: 'rgb(15, 118, 110)' });
  });

  it('uses role alert for errors and status for success', () => {
    renderWithProviders(
      <>
        <Alert variant="error">
          <p>Broken</p>
        </Alert>
        <Alert variant="success" title="Email sent!" />
      </>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Broken');
    expect(screen.getByRole('status')).toHaveTextContent('Email sent!');
  });
});

describe('EmailText', () => {
  it('may break after the @ and before a dot, never at a hyphen', () => {
    const { container } = render(<EmailText email="ann-marie@ex-ample.co.uk" />);
    const email = container.querySelector('.email');
    expect(email).toHaveTextContent('ann-marie@ex-ample.co.uk');
    expect([...container.querySelectorAll('.email-piece')].map((piece) => piece.textContent)).toEqual(['ann-marie@', 'ex-ample', '.co', '.uk']);
    // The break opportunities are exactly the ones between the pieces.
    expect(container.querySelectorAll('wbr')).toHaveLength(3);
  });
});

describe('ErrorText (spec §8 generic HTTP failures)', () => {
  it.each([
    ['error.network', 'Network Error', 'Check your internet connection, then try again.'],
    ['error.requestAborted', 'Request aborted', 'The request was stopped before it finished. Try again.'],
    ['error.unsupportedProtocol', 'Unsupported protocol', 'Open this page from its https:// address in your browser, then try again.'],
  ] as const)('%s shows the spec text and what to do next', (key, text, next) => {
    renderWithProviders(<ErrorText messageKey={key} />);
    expect(screen.getByText(text)).toBeTruthy();
    expect(screen.getByText(next)).toBeTruthy();
  });

  it('names the configured timeout', () => {
    setCallTimeout(2500);
    try {
      renderWithProviders(<ErrorText messageKey="error.timeout" />);
      expect(screen.getByText('timeout of 2500 ms exceeded')).toBeTruthy();
      expect(screen.getByText(/took too long to answer/)).toBeTruthy();
    } finally {
      setCallTimeout(0);
    }
  });

  it('adds nothing to a contract error text', () => {
    const { container } = renderWithProviders(<ErrorText messageKey="error.accountLocked" />);
    expect(container.querySelectorAll('p')).toHaveLength(1);
  });
});
