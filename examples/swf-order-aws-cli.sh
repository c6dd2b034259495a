#!/usr/bin/env bash
# The order workflow (four activities in a row, then complete) driven with the aws CLI alone: the
# script is the decider and the activity worker, one long poll at a time, against the HTTP gateway
# of `actorflow serve` (AWS JSON 1.0, SigV4 with any key unless AF_ACCESS_KEYS says otherwise).
#
# Usage: examples/swf-order-aws-cli.sh [ENDPOINT_URL [DOMAIN]]   (default http://127.0.0.1:8080, cli-order)
# Prints the closed run's closeStatus and result; exits 0 when it COMPLETED.
set -euo pipefail

ENDPOINT=${1:-${SWF_ENDPOINT_URL:-http://127.0.0.1:8080}}
DOMAIN=${2:-cli-order}
STEPS=(VerifyOrder ChargeCreditCard ShipOrder RecordCompletion)
export AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1} AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-AKIDEXAMPLE} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-example-secret}
swf() { aws swf "$@" --endpoint-url "$ENDPOINT" --cli-read-timeout 70; }
# Registering again is fine: the *AlreadyExistsFault exits non-zero and is ignored.
again() { "$@" 2>/dev/null || true; }
# A JSON string literal of $1 (quotes and backslashes escaped).
json_string() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }

again swf register-domain --name "$DOMAIN" --workflow-execution-retention-period-in-days 1
again swf register-workflow-type --domain "$DOMAIN" --name OrderFulfillment --workflow-version 1.0 \
  --default-task-list name=order-decisions --default-child-policy TERMINATE \
  --default-execution-start-to-close-timeout 3600 --default-task-start-to-close-timeout 30
for step in "${STEPS[@]}"; do
  again swf register-activity-type --domain "$DOMAIN" --name "$step" --activity-version 1.0 \
    --default-task-list name=order-activities --default-task-schedule-to-start-timeout 300 \
    --default-task-start-to-close-timeout 60 --default-task-schedule-to-close-timeout 360 --default-task-heartbeat-timeout NONE
done

WORKFLOW_ID="order-$(date +%s%N)"
RUN_ID=$(swf start-workflow-execution --domain "$DOMAIN" --workflow-id "$WORKFLOW_ID" \
  --workflow-type name=OrderFulfillment,version=1.0 --input '{"orderId":"cli-1"}' --query runId --output text)

# One decision: schedule the next step (its input the previous step's result), or complete.
decide() {
  local task token='' done input decision
  # A long poll that ends without a task answers an empty taskToken (None): poll again.
  while [[ -z $token || $token == None ]]; do
    task=$(swf poll-for-decision-task --domain "$DOMAIN" --task-list name=order-decisions --identity cli-decider \
      --query "[taskToken, length(events[?eventType=='ActivityTaskCompleted']), (events[?eventType=='ActivityTaskCompleted'] | [-1].activityTaskCompletedEventAttributes.result) || events[0].workflowExecutionStartedEventAttributes.input]" \
      --output text)
    IFS=$'\t' read -r token done input <<<"$task"
  done
  if (( done < ${#STEPS[@]} )); then
    local step=${STEPS[$done]}
    decision="[{\"decisionType\":\"ScheduleActivityTask\",\"scheduleActivityTaskDecisionAttributes\":{\"activityType\":{\"name\":\"$step\",\"version\":\"1.0\"},\"activityId\":\"$step\",\"input\":$(json_string "$input")}}]"
  else
    decision="[{\"decisionType\":\"CompleteWorkflowExecution\",\"completeWorkflowExecutionDecisionAttributes\":{\"result\":$(json_string "$input")}}]"
  fi
  swf respond-decision-task-completed --task-token="$token" --decisions "$decision"
}

# One activity task: the step stamps the order it is given.
work() {
  local task token='' name input
  while [[ -z $token || $token == None ]]; do
    task=$(swf poll-for-activity-task --domain "$DOMAIN" --task-list name=order-activities --identity cli-worker \
      --query '[taskToken, activityType.name, input]' --output text)
    IFS=$'\t' read -r token name input <<<"$task"
  done
  swf respond-activity-task-completed --task-token="$token" --result "${input%\}},\"$name\":\"ok\"}"
}

for _ in "${STEPS[@]}"; do decide; work; done
decide

swf describe-workflow-execution --domain "$DOMAIN" --execution "workflowId=$WORKFLOW_ID,runId=$RUN_ID" \
  --query 'executionInfo.[executionStatus, closeStatus]' --output text
RESULT=$(swf get-workflow-execution-history --domain "$DOMAIN" --execution "workflowId=$WORKFLOW_ID,runId=$RUN_ID" \
  --reverse-order --maximum-page-size 1 --query 'events[0].workflowExecutionCompletedEventAttributes.result' --output text)
echo "$RESULT"
[[ $RESULT == *'"RecordCompletion":"ok"'* ]]
