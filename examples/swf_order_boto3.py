#!/usr/bin/python3
"""The order-fulfilment workflow through ActorFlow's AWS JSON 1.0 gateway, with boto3 only.

Usage: /usr/bin/python3 examples/swf_order_boto3.py [ENDPOINT_URL [DOMAIN]]
  ENDPOINT_URL  default $SWF_ENDPOINT_URL, then http://127.0.0.1:8080
  DOMAIN        default $SWF_DOMAIN, then "py-order"

Registers the domain and the types (already-exists faults are ignored), starts one execution,
runs a decider thread and an activity-worker thread (each a real 60 s long poll, as any SWF
client does), waits for the run to close, then prints a JSON summary on stdout:
  {"workflowId", "runId", "closeStatus", "result", "eventTypes": [...]}
Exits 0 when the run closed COMPLETED, 1 otherwise, 2 on a client error.
"""
import json
import os
import sys
import threading
import time
import traceback
import uuid

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

STEPS = ["VerifyOrder", "ChargeCreditCard", "ShipOrder", "RecordCompletion"]
WORKFLOW_TYPE = {"name": "OrderFulfillment", "version": "1.0"}
DECISIONS = "order-decisions"
ACTIVITIES = "order-activities"
WAIT_SECONDS = float(os.environ.get("SWF_ORDER_TIMEOUT", "60"))


def client(endpoint):
    return boto3.client(
        "swf",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="AKIDPYTHONTEST",
        aws_secret_access_key="python-test-secret",
        # One attempt (faults surface at once); the read timeout outlasts a 60 s long poll.
        config=Config(retries={"max_attempts": 1}, read_timeout=70, connect_timeout=5),
    )


def ignore(code, call, **kwargs):
    try:
        call(**kwargs)
    except ClientError as e:
        if e.response["Error"]["Code"] != code:
            raise


def register(swf, domain):
    ignore("DomainAlreadyExistsFault", swf.register_domain, name=domain, workflowExecutionRetentionPeriodInDays="1")
    ignore("TypeAlreadyExistsFault", swf.register_workflow_type, domain=domain, **WORKFLOW_TYPE,
           defaultTaskList={"name": DECISIONS}, defaultChildPolicy="TERMINATE",
           defaultExecutionStartToCloseTimeout="3600", defaultTaskStartToCloseTimeout="30")
    for name in STEPS:
        ignore("TypeAlreadyExistsFault", swf.register_activity_type, domain=domain, name=name, version="1.0",
               defaultTaskList={"name": ACTIVITIES}, defaultTaskScheduleToStartTimeout="300",
               defaultTaskStartToCloseTimeout="60", defaultTaskScheduleToCloseTimeout="360",
               defaultTaskHeartbeatTimeout="NONE")


def decide(events):
    """The four steps in order, each fed the previous result; fail the run on any failed step."""
    for e in events:
        if e["eventType"] in ("ActivityTaskFailed", "ActivityTaskTimedOut", "ScheduleActivityTaskFailed"):
            return [{"decisionType": "FailWorkflowExecution",
                     "failWorkflowExecutionDecisionAttributes": {"reason": e["eventType"]}}]
    completed = [e for e in events if e["eventType"] == "ActivityTaskCompleted"]
    last = completed[-1]["activityTaskCompletedEventAttributes"].get("result") if completed else None
    n = len(completed)
    if n == len(STEPS):
        return [{"decisionType": "CompleteWorkflowExecution",
                 "completeWorkflowExecutionDecisionAttributes": {"result": last}}]
    started = events[0].get("workflowExecutionStartedEventAttributes", {})
    return [{"decisionType": "ScheduleActivityTask",
             "scheduleActivityTaskDecisionAttributes": {
                 "activityType": {"name": STEPS[n], "version": "1.0"},
                 "activityId": "%s-%d" % (STEPS[n], n + 1),
                 "input": last if last is not None else started.get("input", "{}"),
             }}]


class Participants:
    """A decider thread and an activity-worker thread; `failed` holds the first error of either."""

    def __init__(self, endpoint, domain, workflow_id):
        self.endpoint, self.domain, self.workflow_id = endpoint, domain, workflow_id
        self.closed = threading.Event()
        self.failed = None

    def start(self):
        for target in (self.decider, self.worker):
            threading.Thread(target=self.guard, args=(target,), daemon=True, name=target.__name__).start()

    def guard(self, loop):
        try:
            loop(client(self.endpoint))  # one client per thread
        except Exception:  # noqa: BLE001 - reported by the main thread
            self.failed = "%s thread: %s" % (loop.__name__, traceback.format_exc())
            self.closed.set()

    def decider(self, swf):
        while True:
            task = swf.poll_for_decision_task(domain=self.domain, taskList={"name": DECISIONS}, identity="boto3-decider")
            if not task.get("taskToken"):
                continue  # the poll timed out empty
            events = list(task.get("events", []))
            token = task.get("nextPageToken")
            while token:
                page = swf.poll_for_decision_task(domain=self.domain, taskList={"name": DECISIONS}, nextPageToken=token)
                events.extend(page.get("events", []))
                token = page.get("nextPageToken")
            decisions = decide(events)
            swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=decisions)
            closing = decisions[0]["decisionType"] in ("CompleteWorkflowExecution", "FailWorkflowExecution")
            if closing and task["workflowExecution"]["workflowId"] == self.workflow_id:
                self.closed.set()

    def worker(self, swf):
        while True:
            task = swf.poll_for_activity_task(domain=self.domain, taskList={"name": ACTIVITIES}, identity="boto3-worker")
            if not task.get("taskToken"):
                continue
            order = json.loads(task.get("input") or "{}")
            order[task["activityType"]["name"]] = "ok"
            swf.respond_activity_task_completed(taskToken=task["taskToken"], result=json.dumps(order, separators=(",", ":")))


def history(swf, domain, execution):
    events, token = [], None
    while True:
        kwargs = {"nextPageToken": token} if token else {}
        page = swf.get_workflow_execution_history(domain=domain, execution=execution, **kwargs)
        events.extend(page.get("events", []))
        token = page.get("nextPageToken")
        if not token:
            return events


def main():
    endpoint = (sys.argv[1] if len(sys.argv) > 1 else None) or os.environ.get("SWF_ENDPOINT_URL") or "http://127.0.0.1:8080"
    domain = (sys.argv[2] if len(sys.argv) > 2 else None) or os.environ.get("SWF_DOMAIN") or "py-order"
    swf = client(endpoint)
    register(swf, domain)

    workflow_id = "py-order-" + uuid.uuid4().hex[:8]
    participants = Participants(endpoint, domain, workflow_id)
    participants.start()
    run_id = swf.start_workflow_execution(domain=domain, workflowId=workflow_id, workflowType=WORKFLOW_TYPE,
                                          input=json.dumps({"orderId": 1}))["runId"]
    execution = {"workflowId": workflow_id, "runId": run_id}

    # The decider signals the close; Describe confirms it (its index may trail by a moment).
    deadline = time.monotonic() + WAIT_SECONDS
    participants.closed.wait(WAIT_SECONDS)
    if participants.failed:
        raise RuntimeError(participants.failed)
    info = swf.describe_workflow_execution(domain=domain, execution=execution)["executionInfo"]
    while info["executionStatus"] != "CLOSED" and time.monotonic() < deadline:
        time.sleep(0.05)
        info = swf.describe_workflow_execution(domain=domain, execution=execution)["executionInfo"]

    events = history(swf, domain, execution)
    last = events[-1] if events else {}
    summary = {
        "workflowId": workflow_id,
        "runId": run_id,
        "executionStatus": info["executionStatus"],
        "closeStatus": info.get("closeStatus"),
        "result": last.get("workflowExecutionCompletedEventAttributes", {}).get("result"),
        "eventIds": [e["eventId"] for e in events],
        "eventTypes": [e["eventType"] for e in events],
    }
    print(json.dumps(summary))
    return 0 if summary["closeStatus"] == "COMPLETED" else 1


if __name__ == "__main__":
    try:
        code = main()
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        code = 2
    sys.stdout.flush()
    sys.stderr.flush()
    # The poller threads sit in 60 s long polls: leave without waiting for them (the gateway
    # sees the connections close and hands nothing to them).
    os._exit(code)
