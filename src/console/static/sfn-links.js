// Links and badges shared by the Step Functions pages.
import { enc, h } from './ui.js';

export const sfnHome = { text: 'Step Functions', href: '/console/sfn/' };
export const machineHref = (arn) => `/console/sfn/state-machine/${enc(arn)}`;
export const executionHref = (arn) => `/console/sfn/execution/${enc(arn)}`;

export function sfnBadge(status) {
  return h('span', { class: `badge ${String(status).toLowerCase()}`, 'data-status': status }, status);
}
