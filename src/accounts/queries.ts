export const INSERT_ACCOUNT = `INSERT INTO accounts (id, kind, name) VALUES ($1, $2, $3)`;
export const INSERT_USER = `INSERT INTO users (id, email, password_hash, account_id) VALUES ($1, $2, $3, $4)`;
/** USER_BY_EMAIL and USER_BY_ID: the user and the organization it acts for, if any. */
export interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  account_id: string;
  active_org_id: string | null;
  created_at: Date;
  org_account_id: string | null;
  org_name: string | null;
}

/** ORG_BY_NAME. */
export interface OrgRow {
  id: string;
  name: string;
  account_id: string;
}

export const USER_BY_EMAIL = `SELECT u.id, u.email, u.password_hash, u.account_id, u.active_org_id, u.created_at,
    o.account_id AS org_account_id, o.name AS org_name
  FROM users u LEFT JOIN organizations o ON o.id = u.active_org_id WHERE u.email = $1`;
export const USER_BY_ID = `SELECT u.id, u.email, u.password_hash, u.account_id, u.active_org_id, u.created_at,
    o.account_id AS org_account_id, o.name AS org_name
  FROM users u LEFT JOIN organizations o ON o.id = u.active_org_id WHERE u.id = $1`;
/** ORGS_OF_USER: an organization of the user, with its role there. */
export interface MembershipRow {
  id: string;
  name: string;
  role: string;
}

export const ORGS_OF_USER = `SELECT o.id, o.name, m.role FROM org_members m JOIN organizations o ON o.id = m.org_id WHERE m.user_id = $1 ORDER BY o.name`;
export const ORG_BY_NAME = `SELECT id, name, account_id FROM organizations WHERE name = $1`;
export const INSERT_ORG = `INSERT INTO organizations (id, name, account_id) VALUES ($1, $2, $3)`;
export const INSERT_MEMBER = `INSERT INTO org_members (org_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`;
export const SET_ACTIVE_ORG = `UPDATE users SET active_org_id = $2 WHERE id = $1`;
export const IS_MEMBER = `SELECT 1 FROM org_members WHERE org_id = $1 AND user_id = $2`;
