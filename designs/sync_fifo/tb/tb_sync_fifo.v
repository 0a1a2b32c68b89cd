`timescale 1ns/1ps
// Self-checking testbench for sync_fifo: 4000 cycles of random writes/reads
// with phases biased towards filling, draining, balanced and busy traffic,
// plus asynchronous resets. The model is a circular queue in the testbench;
// dout, full, empty and count are checked every cycle.
module tb_sync_fifo;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        wr_en, rd_en;
    reg  [7:0] din;
    wire [7:0] dout;
    wire       full, empty;
    wire [3:0] count;

    sync_fifo dut (.clk(clk), .rst_n(rst_n), .wr_en(wr_en), .din(din), .rd_en(rd_en),
                   .dout(dout), .full(full), .empty(empty), .count(count));

    always #5 clk = ~clk;

    // xorshift32 PRNG with a fixed seed: identical stimulus on every simulator
    reg [31:0] seed;
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    integer errors;
    integer n, r, pw, pr;
    reg [7:0] q [0:7];
    integer head, tail, cnt;
    reg [7:0] m_dout;
    reg       acc_wr, acc_rd;
    integer n_full, n_empty, n_drop_wr, n_drop_rd, n_reads;

    task check;
        begin
            if (dout !== m_dout || count !== cnt[3:0] || full !== (cnt == 8) || empty !== (cnt == 0)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: dout=%h count=%0d full=%b empty=%b expected dout=%h count=%0d",
                             $time, dout, count, full, empty, m_dout, cnt);
            end
            if (cnt == 8) n_full = n_full + 1;
            if (cnt == 0) n_empty = n_empty + 1;
        end
    endtask

    initial begin
        errors = 0; n_full = 0; n_empty = 0; n_drop_wr = 0; n_drop_rd = 0; n_reads = 0;
        seed  = 32'hF1F0_0008;
        wr_en = 1'b0; rd_en = 1'b0; din = 8'd0;
        rst_n = 1'b0;
        head = 0; tail = 0; cnt = 0; m_dout = 8'd0;
        #12 rst_n = 1'b1;
        for (n = 0; n < 4000; n = n + 1) begin
            @(negedge clk);
            check;
            r = urand(0) % 600;
            if (r == 0) begin
                #2 rst_n = 1'b0;
                #1 head = 0; tail = 0; cnt = 0; m_dout = 8'd0;
                check;              // cleared immediately (async)
                #1 rst_n = 1'b1;
            end
            case ((n / 250) % 4)
                0: begin pw = 80; pr = 20; end   // fill
                1: begin pw = 20; pr = 80; end   // drain
                2: begin pw = 50; pr = 50; end   // balanced
                default: begin pw = 95; pr = 90; end // busy
            endcase
            r = urand(0) % 100; wr_en = (r < pw);
            r = urand(0) % 100; rd_en = (r < pr);
            din = urand(0);
            @(posedge clk);
            acc_wr = wr_en && (cnt < 8);
            acc_rd = rd_en && (cnt > 0);
            if (wr_en && !acc_wr) n_drop_wr = n_drop_wr + 1;
            if (rd_en && !acc_rd) n_drop_rd = n_drop_rd + 1;
            if (acc_rd) begin
                m_dout = q[head];
                head = (head + 1) % 8;
                n_reads = n_reads + 1;
            end
            if (acc_wr) begin
                q[tail] = din;
                tail = (tail + 1) % 8;
            end
            cnt = cnt + (acc_wr ? 1 : 0) - (acc_rd ? 1 : 0);
        end
        @(negedge clk);
        check;
        if (n_full < 20 || n_empty < 20 || n_drop_wr < 10 || n_drop_rd < 10 || n_reads < 1000) begin
            $display("coverage: full=%0d empty=%0d dropped wr=%0d rd=%0d reads=%0d",
                     n_full, n_empty, n_drop_wr, n_drop_rd, n_reads);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
