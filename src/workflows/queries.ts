/** SQL of the workflow executor's node charging (nodeCharge.ts). */

/** A ready node's hold becomes its price (the ledger rows that move it are written by the caller). */
export const SET_NODE_HOLD = `UPDATE node_runs SET reserved_microcredits = $3, priced_microcredits = $3 WHERE run_id = $1 AND node_id = $2`;

/** Nodes whose charge `atelier doctor` re-prices from their stored input. */
export const CHARGED_NODES = `SELECT n.run_id, n.node_id, n.node_type, n.sub_model_id, n.input, n.charged_microcredits
  FROM node_runs n WHERE n.status = 'COMPLETED' AND n.charged_microcredits > 0 ORDER BY n.run_id, n.node_id`;
