`timescale 1ns/1ps
// Self-checking testbench for fifo_corners: directed fill to full, overflow,
// read+write while full and while empty, underflow, flush of a full FIFO, then
// 6000 cycles of random traffic in fill / drain / balanced / busy phases with rare
// flushes and resets. A queue model is stepped at each rising edge; dout, count,
// the four level flags and both error flags are checked every cycle.
module tb_fifo_corners;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        flush, wr_en, rd_en;
    reg  [7:0] din;
    wire [7:0] dout;
    wire       full, empty, almost_full, almost_empty, overflow, underflow;
    wire [4:0] count;

    fifo_corners dut (.clk(clk), .rst_n(rst_n), .flush(flush), .wr_en(wr_en), .din(din), .rd_en(rd_en),
                      .dout(dout), .full(full), .empty(empty), .almost_full(almost_full),
                      .almost_empty(almost_empty), .count(count), .overflow(overflow),
                      .underflow(underflow));

    always #5 clk = ~clk;

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

    reg [7:0] q [0:15];
    integer head, tail, cnt;
    reg [7:0] m_dout;
    reg       m_ovf, m_unf, acc_rd, acc_wr;
    integer errors, n, r, pw, pr, n_full, n_ovf, n_rwfull;

    task check;
        begin
            if (dout !== m_dout || count !== cnt[4:0] || full !== (cnt == 16) || empty !== (cnt == 0) ||
                almost_full !== (cnt >= 14) || almost_empty !== (cnt <= 2) ||
                overflow !== m_ovf || underflow !== m_unf) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: dout=%h count=%0d ovf=%b unf=%b expected dout=%h count=%0d ovf=%b unf=%b",
                             $time, dout, count, overflow, underflow, m_dout, cnt, m_ovf, m_unf);
            end
            if (cnt == 16) n_full = n_full + 1;
        end
    endtask

    task model_step;
        begin
            if (flush) begin
                head = 0; tail = 0; cnt = 0; m_ovf = 0; m_unf = 0;
            end else begin
                acc_rd = rd_en && cnt > 0;
                acc_wr = wr_en && (cnt < 16 || acc_rd);
                if (wr_en && cnt == 16 && !rd_en) begin m_ovf = 1; n_ovf = n_ovf + 1; end
                if (rd_en && cnt == 0) m_unf = 1;
                if (wr_en && rd_en && cnt == 16) n_rwfull = n_rwfull + 1;
                if (acc_rd) begin m_dout = q[head]; head = (head + 1) % 16; end
                if (acc_wr) begin q[tail] = din; tail = (tail + 1) % 16; end
                cnt = cnt + (acc_wr ? 1 : 0) - (acc_rd ? 1 : 0);
            end
        end
    endtask

    task cycle;
        input f; input w; input rd;
        begin
            @(negedge clk);
            check;
            flush = f; wr_en = w; rd_en = rd; din = urand(0);
            @(posedge clk);
            model_step;
        end
    endtask

    integer i;
    initial begin
        errors = 0; n_full = 0; n_ovf = 0; n_rwfull = 0;
        seed = 32'hF1F0_0016;
        flush = 0; wr_en = 0; rd_en = 0; din = 0;
        head = 0; tail = 0; cnt = 0; m_dout = 0; m_ovf = 0; m_unf = 0;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        cycle(0, 1, 1);                                   // read+write when empty: underflow
        for (i = 0; i < 17; i = i + 1) cycle(0, 1, 0);   // fill, one overflow
        cycle(0, 1, 1); cycle(0, 1, 1);                   // read+write when full
        cycle(0, 0, 1); cycle(0, 1, 0);
        cycle(1, 1, 1);                                   // flush a full FIFO
        for (i = 0; i < 40; i = i + 1) cycle(0, i < 20, i >= 20 || i % 3 == 0);
        for (n = 0; n < 6000; n = n + 1) begin
            case ((n / 300) % 4)
                0: begin pw = 85; pr = 25; end
                1: begin pw = 25; pr = 85; end
                2: begin pw = 50; pr = 50; end
                default: begin pw = 95; pr = 90; end
            endcase
            cycle((urand(0) % 400) == 0, (urand(0) % 100) < pw, (urand(0) % 100) < pr);
            if (urand(0) % 1500 == 0) begin
                @(negedge clk); check; flush = 0; wr_en = 0; rd_en = 0;
                #2 rst_n = 1'b0;
                #1 head = 0; tail = 0; cnt = 0; m_dout = 0; m_ovf = 0; m_unf = 0;
                check;
                #1 rst_n = 1'b1;
                @(posedge clk); model_step;
            end
        end
        @(negedge clk);
        check;
        if (n_full < 20 || n_ovf < 5 || n_rwfull < 5) begin
            $display("coverage: full=%0d overflow=%0d rw_full=%0d", n_full, n_ovf, n_rwfull);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (full %0d, overflows %0d, rw when full %0d)", n_full, n_ovf, n_rwfull);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
