"""The event log: signed events, the store, snapshots, the application that commits and reads
them, and the one time format."""
