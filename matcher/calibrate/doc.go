package calibrate
