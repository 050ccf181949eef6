-- What a webhook's deliveries look like: 'errata' (the signed document of docs/webhooks.md) or a
-- chat service's incoming-webhook message ('slack', 'discord', 'teams', 'mattermost').
ALTER TABLE webhooks ADD COLUMN format text NOT NULL DEFAULT 'errata';
