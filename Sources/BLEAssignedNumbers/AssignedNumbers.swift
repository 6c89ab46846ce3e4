/// Bluetooth SIG assigned numbers. The tables are generated; see scripts/generate_assigned_numbers.py.
public enum AssignedNumbers {}
