// Runs the user-style example test of examples/time-skipping/ (its tests register here).
import '../../examples/time-skipping/trial-workflow.test.js';
