`timescale 1ns/1ps
// Self-checking testbench for seq_detect: 4000 random serial bits with a
// varying density of ones, plus asynchronous resets. The model keeps a
// shift register of the bits sampled since reset and expects detected
// whenever the last four sampled bits are 1,0,1,1.
module tb_seq_detect;
    reg  clk = 1'b0;
    reg  rst_n;
    reg  din;
    wire detected;

    seq_detect dut (.clk(clk), .rst_n(rst_n), .din(din), .detected(detected));

    always #5 clk = ~clk;

    // xorshift32 PRNG with a fixed seed: identical stimulus on every simulator
    // (Verilator 5.006's $random(seed) degenerates after a few hundred calls).
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
    integer n, r, dens;
    integer hits;
    integer nbits;           // bits sampled since the last reset
    reg [3:0] hist;          // hist[0] = most recent bit, hist[3] = oldest
    reg       exp_det;

    task check;
        begin
            exp_det = (nbits >= 4) && (hist == 4'b1011);  // hist[3] oldest .. hist[0] newest = 1,0,1,1
            if (detected !== exp_det) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: detected=%b expected %b (hist=%b)",
                             $time, detected, exp_det, hist);
            end
            if (exp_det) hits = hits + 1;
        end
    endtask

    initial begin
        errors = 0; hits = 0;
        seed  = 32'h5EED_1011;
        din   = 1'b0;
        rst_n = 1'b0;
        hist  = 4'd0; nbits = 0;
        #12 rst_n = 1'b1;
        // the first 15 bits are a directed overlapping/restarting pattern
        for (n = 0; n < 4300; n = n + 1) begin
            @(negedge clk);
            check;
            r = urand(0) % 400;
            if (r == 0) begin
                #2 rst_n = 1'b0;
                #1 hist = 4'd0; nbits = 0;
                check;              // must be idle immediately (async reset)
                #1 rst_n = 1'b1;
            end
            if (n < 15) begin
                din = (15'b110_1110_1101_1011 >> n) & 1'b1;   // bits sent LSB first
            end else begin
                dens = 30 + ((n / 500) % 5) * 10;               // 30% .. 70% ones
                r = urand(0) % 100;
                din = (r < dens);
            end
            @(posedge clk);
            hist  = {hist[2:0], din};
            nbits = nbits + 1;
        end
        @(negedge clk);
        check;
        if (hits < 100) begin
            $display("coverage: only %0d detections", hits);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
