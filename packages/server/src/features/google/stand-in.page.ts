/**
 * The stand-in's sign-in page (decision 0019): any email and name, and whether the provider
 * asserts the email verified (yes by default, as Google does for its own addresses). Static
 * HTML, no script; the uid is oidc-provider's and the message is ours.
 */
export function standInLoginPage(uid: string, message: string | undefined): string {
  const id = encodeURIComponent(uid);
  const alert = message === undefined ? '' : `<p role="alert" class="alert">${message}</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in – local Google stand-in</title>
<style>
body { font-family: system-ui, sans-serif; background: #f4f5f7; color: #1d2433; margin: 0; }
main { max-width: 26rem; margin: 3rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px rgb(0 0 0 / 15%); }
h1 { font-size: 1.4rem; margin-top: 0; }
label { display: block; margin: 1rem 0 0.25rem; font-weight: 600; }
input[type=email], input[type=text] { width: 100%; box-sizing: border-box; padding: 0.6rem; font-size: 1rem; border: 1px solid #6b7280; border-radius: 4px; }
.check { display: flex; gap: 0.5rem; align-items: center; font-weight: 400; }
.actions { display: flex; gap: 0.75rem; margin-top: 1.5rem; }
button { padding: 0.6rem 1.2rem; font-size: 1rem; border-radius: 4px; border: 1px solid #1a56db; cursor: pointer; }
.primary { background: #1a56db; color: #fff; }
.secondary { background: #fff; color: #1a56db; }
.alert { color: #9b1c1c; }
.note { color: #4b5563; font-size: 0.9rem; }
</style>
</head>
<body>
<main>
<h1>Sign in with Google (local stand-in)</h1>
<p class="note">This local OpenID provider stands in for Google on a developer's machine. Type any email and name.</p>
${alert}
<form method="post" action="/interaction/${id}/login">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="off" required autofocus>
<label for="given_name">First name</label>
<input id="given_name" name="given_name" type="text" autocomplete="off">
<label for="family_name">Last name</label>
<input id="family_name" name="family_name" type="text" autocomplete="off">
<label class="check"><input type="checkbox" name="email_verified" value="yes" checked> The provider says this email is verified</label>
<div class="actions">
<button class="primary" type="submit">Continue</button>
<button class="secondary" type="submit" formaction="/interaction/${id}/abort" formnovalidate>Cancel</button>
</div>
</form>
</main>
</body>
</html>`;
}
