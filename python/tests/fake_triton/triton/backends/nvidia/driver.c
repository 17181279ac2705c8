int driver;
