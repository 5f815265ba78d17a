"""Other rules engines, driven to answer the questions ``mtgasp diff`` compares."""
