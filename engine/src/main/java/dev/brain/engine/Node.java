package dev.brain.engine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.solr.cloud.MiniSolrCloudCluster;
import org.apache.solr.embedded.JettyConfig;
import org.apache.solr.embedded.JettySolrRunner;
import org.apache.zookeeper.server.ZooKeeperServerMain;

/**
 * One process of the local team engine (scripts/engine.sh starts three):
 *
 * <pre>
 *   Node zk   PORT DATA_DIR          a standalone ZooKeeper, the cluster's coordinator
 *   Node solr PORT SOLR_HOME ZK      a SolrCloud node at http://127.0.0.1:PORT/solr
 * </pre>
 *
 * Each Solr node is its own JVM, so a fault test kills one for real (SIGKILL) while the other keeps
 * answering from its replicas. A node prints "ready URL" on stdout once it serves requests.
 */
public final class Node {
  private Node() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 3 && args[0].equals("zk")) {
      // A config file rather than (port, dir): only it can bind the loopback interface alone.
      Path data = Path.of(args[2]);
      Files.createDirectories(data);
      Path cfg = data.resolve("zoo.cfg");
      Files.writeString(
          cfg,
          "dataDir=" + data.toAbsolutePath() + "\n"
              + "clientPort=" + Integer.parseInt(args[1]) + "\n"
              + "clientPortAddress=127.0.0.1\n"
              + "tickTime=2000\n"
              + "maxClientCnxns=0\n"
              + "admin.enableServer=false\n");
      ZooKeeperServerMain.main(new String[] {cfg.toString()});
      return;
    }
    if (args.length != 4 || !args[0].equals("solr")) {
      System.err.println("usage: Node zk PORT DATA_DIR | Node solr PORT SOLR_HOME ZK_HOST");
      System.exit(64);
    }
    int port = Integer.parseInt(args[1]);
    Path home = Path.of(args[2]);
    Files.createDirectories(home);
    Path xml = home.resolve("solr.xml");
    if (!Files.exists(xml)) {
      Files.writeString(xml, MiniSolrCloudCluster.DEFAULT_CLOUD_SOLR_XML);
    }
    System.setProperty("zkHost", args[3]);
    Properties props = new Properties();
    props.setProperty("hostPort", Integer.toString(port));
    JettyConfig config =
        JettyConfig.builder().setPort(port).setContext("/solr").stopAtShutdown(true).build();
    JettySolrRunner node = new JettySolrRunner(home.toString(), props, config);
    node.start();
    System.out.println("ready " + node.getBaseUrl());
    System.out.flush();
    Thread.currentThread().join();
  }
}
