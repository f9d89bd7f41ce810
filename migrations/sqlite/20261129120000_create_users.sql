-- +goose Up
CREATE TABLE users (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    username   TEXT     NOT NULL CHECK (username <> ''),
    email      TEXT     NOT NULL CHECK (email <> ''),
    name       TEXT     NOT NULL DEFAULT '',
    state      TEXT     NOT NULL DEFAULT 'active'
               CHECK (state IN ('active', 'blocked', 'deactivated')),
    admin      BOOLEAN  NOT NULL DEFAULT 0,
    ee_seat    BOOLEAN  NOT NULL DEFAULT 0,
    created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_users_on_lower_username ON users (lower(username));
CREATE UNIQUE INDEX index_users_on_lower_email ON users (lower(email));

-- +goose Down
DROP TABLE users;
