// What the dashboard counts as a secret, and how it masks one on screen: the rule of dev.allot.core.rules.Secrets
// (allot show's), mirrored here because the page masks what the API shows the owner whole. An API token (allot_ and
// its secret), and the value of a variable or --option= whose name says secret (ALLOT_TOKEN, WANDB_API_KEY,
// --password=). SecretsBrowserTest holds this and the Java rule to the same examples.
'use strict';
Allot.secrets = (() => {
  const TOKEN_SHAPE = /allot_[A-Za-z0-9_-]{16,}/g;
  // name parts that say secret wherever they stand in a name (PGPASSWORD, HF_TOKEN)
  const WORDS = ['TOKEN', 'SECRET', 'PASSW', 'CREDENTIAL', 'APIKEY', 'API_KEY', 'ACCESS_KEY', 'PRIVATE_KEY'];
  // name parts that say secret only as a whole part between underscores, dots or dashes (SSH_KEY, not KEYBOARD)
  const PARTS = ['KEY', 'PASS', 'PWD', 'AUTH'];
  const OPTION_WITH_VALUE = /^(--?[A-Za-z0-9_.-]+=)([\s\S]+)$/;

  const isSecretName = name => {
    const upper = name.toUpperCase();
    return WORDS.some(w => upper.includes(w)) || upper.split(/[_.-]+/).some(p => PARTS.includes(p));
  };
  // its first four characters when it has 16 or more, and its length: allo...[43 chars]
  const masked = value => {
    const chars = Array.from(value);
    return (chars.length >= 16 ? chars.slice(0, 4).join('') : '') + '...[' + chars.length
      + (chars.length === 1 ? ' char]' : ' chars]');
  };
  const tokensMasked = text => text.replace(TOKEN_SHAPE, t => masked(t));
  /** A variable's value as shown: masked when its name or its shape says secret. */
  const variable = (name, value) => (isSecretName(name) ? masked(value) : tokensMasked(value));
  /** A command word as shown, or null when it holds no secret. */
  const word = w => {
    const m = OPTION_WITH_VALUE.exec(w);
    if (m && isSecretName(m[1])) {
      return m[1] + masked(m[2]);
    }
    const t = tokensMasked(w);
    return t === w ? null : t;
  };
  /**
   * A command and an environment as a page shows them, each secret masked unless {@code whole}: their texts, and what
   * the page's Secrets row holds (whether they are masked, and the Show or Hide button calling {@code toggle}), null
   * when nothing in them is secret.
   */
  const shown = (command, environment, whole, toggle) => {
    let any = false;
    const one = (given, secret) => {
      any = any || (secret !== null && secret !== given);
      return whole || secret === null ? given : secret;
    };
    const commandText = (command || []).map(w => one(w, word(w))).join(' ');
    const environmentText = Object.entries(environment || {}).map(([k, v]) => k + '=' + one(v, variable(k, v))).join(' ');
    const row = any ? [Allot.el('span', { id: 'secrets-state' }, whole ? 'shown whole ' : 'masked '),
      Allot.el('button', { id: 'show-secrets', type: 'button', class: 'secondary', onclick: toggle }, whole ? 'Hide' : 'Show')]
      : null;
    return { command: commandText, environment: environmentText, row };
  };
  return { isSecretName, masked, variable, word, shown };
})();
