import type { PoolClient } from 'pg';
import type { Db } from '../db/pool.js';
import { isUniqueViolation } from '../db/pool.js';
import { AppError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { hashPassword, verifyPassword } from './password.js';
import { openBalance } from '../ledger/ledger.js';
import * as q from './queries.js';
import { countOf, rowOf, rowsOf } from '../db/typed.js';

export interface User {
  id: string;
  email: string;
  accountId: string;
  activeOrgId: string | null;
  activeOrgName: string | null;
  /** The account that balances, runs and files belong to: the active organization's, else the personal one. */
  actingAccountId: string;
  createdAt: Date;
}

const EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

export function normalizeEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (!EMAIL.test(e) || e.length > 254) throw validationError('email', 'must be an email address');
  return e;
}

function toUser(row: q.UserRow): User {
  return {
    id: row.id,
    email: row.email,
    accountId: row.account_id,
    activeOrgId: row.active_org_id,
    activeOrgName: row.org_name ?? null,
    actingAccountId: row.org_account_id ?? row.account_id,
    createdAt: row.created_at,
  };
}

async function createAccount(c: PoolClient, kind: 'user' | 'org', name: string): Promise<string> {
  const id = newId(kind === 'user' ? 'acc' : 'acco');
  await c.query(q.INSERT_ACCOUNT, [id, kind, name]);
  await openBalance(c, id);
  return id;
}

export class AccountService {
  constructor(private readonly db: Db) {}

  async findByEmail(email: string): Promise<User | undefined> {
    const r = await rowOf<q.UserRow>(this.db, q.USER_BY_EMAIL, [normalizeEmail(email)]);
    return r ? toUser(r) : undefined;
  }

  async requireByEmail(email: string): Promise<User> {
    const u = await this.findByEmail(email);
    if (!u) throw new AppError('NOT_FOUND', `no user with email ${normalizeEmail(email)}`);
    return u;
  }

  async findById(id: string): Promise<User | undefined> {
    const r = await rowOf<q.UserRow>(this.db, q.USER_BY_ID, [id]);
    return r ? toUser(r) : undefined;
  }

  /**
   * The user whose email and password these are, or undefined. An unknown email still costs one scrypt,
   * so the answer time does not tell which emails have accounts.
   */
  async checkPassword(email: string, password: string): Promise<User | undefined> {
    let row: q.UserRow | undefined;
    try {
      row = await rowOf<q.UserRow>(this.db, q.USER_BY_EMAIL, [normalizeEmail(email)]);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
    }
    const ok = await verifyPassword(password, row?.password_hash ?? (await dummyHash()));
    return ok && row ? toUser(row) : undefined;
  }

  /** The organizations the user belongs to, by name. */
  async organizations(userId: string): Promise<Array<{ id: string; name: string; role: string }>> {
    return rowsOf<q.MembershipRow>(this.db, q.ORGS_OF_USER, [userId]);
  }

  /** Creates a user (and, with orgName, joins or creates that organization and makes it active). */
  async createUser(input: { email: string; password: string; orgName?: string }): Promise<User> {
    const email = normalizeEmail(input.email);
    if (input.password.length < 8) throw validationError('password', 'must be at least 8 characters');
    const passwordHash = await hashPassword(input.password);
    try {
      await this.db.tx(async (c) => {
        const accountId = await createAccount(c, 'user', email);
        const userId = newId('usr');
        await c.query(q.INSERT_USER, [userId, email, passwordHash, accountId]);
        if (input.orgName !== undefined) await joinOrg(c, userId, input.orgName);
      });
    } catch (err) {
      if (isUniqueViolation(err, 'users_email_key')) throw new AppError('CONFLICT', `a user with email ${email} already exists`);
      throw err;
    }
    return this.requireByEmail(email);
  }

  /** Adds the user to an organization (created if new) and makes it the active one. */
  async joinOrganization(email: string, orgName: string): Promise<User> {
    const user = await this.requireByEmail(email);
    await this.db.tx((c) => joinOrg(c, user.id, orgName));
    return this.requireByEmail(email);
  }

  /** Switches the acting account: an organization the user belongs to, or null for the personal account. */
  async setActiveOrganization(email: string, orgName: string | null): Promise<User> {
    const user = await this.requireByEmail(email);
    let orgId: string | null = null;
    if (orgName !== null) {
      const org = await rowOf<q.OrgRow>(this.db, q.ORG_BY_NAME, [orgName]);
      if (!org || (await countOf(this.db, q.IS_MEMBER, [org.id, user.id])) === 0) {
        throw new AppError('NOT_FOUND', `${user.email} is not a member of an organization named ${orgName}`);
      }
      orgId = org.id;
    }
    await this.db.query(q.SET_ACTIVE_ORG, [user.id, orgId]);
    return this.requireByEmail(email);
  }

}

let dummy: Promise<string> | undefined;
/** A hash of nothing anyone knows, made once, to verify against when the email is unknown. */
function dummyHash(): Promise<string> {
  return (dummy ??= hashPassword(newId('dummy')));
}

async function joinOrg(c: PoolClient, userId: string, orgName: string): Promise<void> {
  const name = orgName.trim();
  if (name.length < 1 || name.length > 100) throw validationError('org', 'must be 1 to 100 characters');
  let org: Pick<q.OrgRow, 'id' | 'account_id'> | undefined = await rowOf<q.OrgRow>(c, q.ORG_BY_NAME, [name]);
  let role = 'member';
  if (!org) {
    const accountId = await createAccount(c, 'org', name);
    org = { id: newId('org'), account_id: accountId };
    await c.query(q.INSERT_ORG, [org.id, name, accountId]);
    role = 'owner';
  }
  await c.query(q.INSERT_MEMBER, [org.id, userId, role]);
  await c.query(q.SET_ACTIVE_ORG, [userId, org.id]);
}
