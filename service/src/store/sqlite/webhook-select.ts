// The SELECT of a webhook row joined with its account's identifier, as every SQLite module that reads webhooks uses it.
export const SELECT_WEBHOOK = `
  SELECT w.*, a.identifier AS account_identifier
    FROM webhooks w JOIN accounts a ON a.id = w.account_id`;
