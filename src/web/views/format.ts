import { formatMillions } from '../../billing/format.js';
import { html, type Html } from '../html.js';

/** Display formats of the web pages. Pure. */

/** `2025-11-23 14:05 UTC`: one time zone for every reader, the same one the API's timestamps use. */
export function formatTime(d: Date | string | null | undefined): Html | string {
  if (d === null || d === undefined) return '—';
  const date = typeof d === 'string' ? new Date(d) : d;
  if (Number.isNaN(date.getTime())) return '—';
  return html`<time datetime="${date.toISOString()}">${date.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** `0.4 s`, `12 s`, `3 min 05 s`, `1 h 02 min`; a dash when the run has not started. */
export function formatDuration(start: Date | string | null | undefined, end: Date | string | null | undefined, now = new Date()): string {
  if (!start) return '—';
  const from = new Date(start).getTime();
  const to = end ? new Date(end).getTime() : now.getTime();
  const ms = Math.max(0, to - from);
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** Microcredits with thousands separators, exact (the unit the API bills in). */
export function formatMicrocredits(n: bigint | number): string {
  const v = typeof n === 'bigint' ? n : BigInt(Math.trunc(n));
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${neg ? '−' : ''}${digits}`;
}

/** Millions as the balance endpoint formats them (`26.17M`). */
export function formatCredits(n: bigint | number): string {
  return formatMillions(typeof n === 'bigint' ? n : BigInt(Math.trunc(n)));
}

/** A YYYY-MM-DD date input read as the start of that day in UTC; undefined when empty, null when not a date. */
export function parseDateInput(value: unknown): Date | undefined | null {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const d = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value ? null : d;
}

/** An optional whole number from a form field: undefined when empty, NaN when not an integer. */
export function parseIntField(value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^\s*-?\d{1,9}\s*$/.test(value)) return Number.NaN;
  return Number(value);
}
